package io.akkaetcd.watch;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One member's watch figures, as etcd's mvcc/metrics.go keeps them: watchers, slow (unsynced)
 * watchers, events handed to streams and not yet sent, events sent. Each stream adds its share
 * through its {@link Stream} and takes it back when it ends; a scrape reads the sums. Lock-free:
 * adders and one CAS per response sent, never a lock per event.
 */
public final class WatchStats {
  private final LongAdder watchers = new LongAdder();
  private final LongAdder slowWatchers = new LongAdder();
  private final LongAdder pendingEvents = new LongAdder();
  private final LongAdder eventsSent = new LongAdder();

  /** etcd_debugging_mvcc_watcher_total. */
  public long watchers() {
    return watchers.sum();
  }

  /** etcd_debugging_mvcc_slow_watcher_total: watchers behind the store's revision after a sync. */
  public long slowWatchers() {
    return slowWatchers.sum();
  }

  /** etcd_debugging_mvcc_pending_events_total: events in streams' output buffers. */
  public long pendingEvents() {
    return pendingEvents.sum();
  }

  /** etcd_debugging_mvcc_events_total: events taken off the buffers for the client. */
  public long eventsSent() {
    return eventsSent.sum();
  }

  /** A new stream's share, all zero. */
  public Stream stream() {
    return new Stream();
  }

  /**
   * One watch stream's share. Its watcher counts and {@link #queued} are confined to the stream's
   * router; {@link #sent} comes from the transport's thread, possibly after the router ended.
   */
  public final class Stream {
    /** Marks {@link #pending} once the stream ended: later sends no longer count as pending. */
    private static final long ENDED = Long.MIN_VALUE;
    private final AtomicLong pending = new AtomicLong();
    /** Bytes of the responses in the output buffer: the router stops offering above its bound. */
    private final AtomicLong pendingBytes = new AtomicLong();
    private long watching;
    private long slow;

    private Stream() {}

    /** The router's watches now and how many of them are behind; adds the change to the sums. */
    void watching(long now, long behind) {
      watchers.add(now - watching);
      slowWatchers.add(behind - slow);
      watching = now;
      slow = behind;
    }

    /** About to offer a response of {@code events} and {@code bytes} to the output buffer. */
    void queued(int events, int bytes) {
      pendingBytes.addAndGet(bytes);
      if (events > 0) {
        pending.addAndGet(events);
        pendingEvents.add(events);
      }
    }

    /** The buffer refused a response counted by {@link #queued}. */
    void refused(int events, int bytes) {
      pendingBytes.addAndGet(-bytes);
      unpend(events);
    }

    /** Bytes offered to the output buffer and not yet taken off it by the transport. */
    long pendingBytes() {
      return pendingBytes.get();
    }

    /**
     * The transport took a response of {@code events} and {@code bytes} off the buffer (etcd's
     * ReportEventReceived).
     */
    public void sent(int events, int bytes) {
      pendingBytes.addAndGet(-bytes);
      if (events == 0) {
        return;
      }
      eventsSent.add(events);
      unpend(events);
    }

    private void unpend(int events) {
      for (long p = pending.get(); p != ENDED && events > 0; p = pending.get()) {
        if (pending.compareAndSet(p, p - events)) {
          pendingEvents.add(-events);
          return;
        }
      }
    }

    /** The router stopped: its watches and what its buffer still held leave the sums. */
    void ended() {
      watching(0, 0);
      long left = pending.getAndSet(ENDED);
      if (left != ENDED) {
        pendingEvents.add(-left);
      }
    }
  }
}
