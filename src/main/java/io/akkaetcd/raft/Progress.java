package io.akkaetcd.raft;

/**
 * The leader's view of one follower (Raft §5.3), with etcd's flow control: {@code match} is the
 * highest index known to be replicated there, {@code next} the next index to send.
 *
 * <p>In {@link State#PROBE} the leader does not know where the follower's log ends: it sends at
 * most one append per heartbeat interval and waits for the answer. In {@link State#REPLICATE} it
 * streams appends optimistically ({@code next} runs ahead of {@code match}), at most
 * {@code maxInflight} unacknowledged ones. In {@link State#SNAPSHOT} the follower needs entries the
 * leader no longer holds: the driver streams it the state machine, and nothing else is sent until
 * the follower acknowledges an index at or past {@code pendingSnapshot} or the transfer fails.
 * Invariant: {@code match < next}. Confined to the {@link RaftCore} that owns it.
 */
final class Progress {
  enum State { PROBE, REPLICATE, SNAPSHOT }

  long match;
  long next;
  State state = State.PROBE;
  /** In PROBE: an append was sent and not yet answered (nor a heartbeat since). */
  boolean probeSent;
  /** Heard from since the last quorum check (for check-quorum). */
  boolean recentActive;
  /** In SNAPSHOT: the compaction point that made a snapshot necessary. */
  long pendingSnapshot;
  private final Inflights inflights;

  Progress(long next, int maxInflight) {
    this.next = next;
    this.inflights = new Inflights(Math.max(1, maxInflight));
  }

  boolean isPaused() {
    return switch (state) {
      case PROBE -> probeSent;
      case REPLICATE -> inflights.full();
      case SNAPSHOT -> true;
    };
  }

  /** The follower needs what was compacted up to {@code compactedIndex}: wait for a snapshot. */
  void becomeSnapshot(long compactedIndex) {
    state = State.SNAPSHOT;
    probeSent = false;
    inflights.reset();
    pendingSnapshot = compactedIndex;
  }

  /**
   * A snapshot transfer ended. Either way the leader probes again, after the next heartbeat
   * answer: a follower that installed it answers the probe at its new index; one that did not
   * needs another snapshot (etcd's ReportSnapshot).
   */
  void snapshotEnded() {
    if (state == State.SNAPSHOT) {
      long after = pendingSnapshot + 1; // a follower that installed it has at least this much
      becomeProbe();
      next = Math.max(match + 1, after);
      probeSent = true;
    }
  }

  void becomeProbe() {
    state = State.PROBE;
    probeSent = false;
    inflights.reset();
    pendingSnapshot = 0;
    next = match + 1;
  }

  void becomeReplicate() {
    state = State.REPLICATE;
    probeSent = false;
    inflights.reset();
    pendingSnapshot = 0;
    next = match + 1;
  }

  /** An append ending at {@code last} was just sent. */
  void sentEntries(long last) {
    switch (state) {
      case REPLICATE -> {
        next = last + 1; // optimistic pipelining
        inflights.add(last);
      }
      case PROBE -> probeSent = true;
      case SNAPSHOT -> { }
    }
  }

  /** An empty append (a probe) was just sent. */
  void sentProbe() {
    if (state == State.PROBE) {
      probeSent = true;
    }
  }

  /** A heartbeat was answered: the follower is reachable, so a probe may go again. */
  void heartbeatAnswered() {
    probeSent = false;
    if (state == State.REPLICATE && inflights.full()) {
      inflights.freeFirst(); // let one append through so a lost one is eventually retried
    }
  }

  /** An acknowledgement up to {@code index}; returns true if it moved {@code match}. */
  boolean maybeUpdate(long index) {
    boolean updated = index > match;
    if (updated) {
      match = index;
      probeSent = false;
    }
    next = Math.max(next, index + 1);
    inflights.freeUpTo(index);
    return updated;
  }

  /**
   * A rejection of the append whose previous index was {@code rejected}; {@code hint} is where the
   * follower suggests to retry after. Returns false if the rejection is stale.
   */
  boolean maybeDecrease(long rejected, long hint) {
    if (state == State.REPLICATE) {
      if (rejected <= match) {
        return false; // an append older than what was since acknowledged
      }
      becomeProbe();
      next = Math.max(match + 1, Math.min(rejected, hint + 1));
      return true;
    }
    if (state == State.SNAPSHOT || next - 1 != rejected) {
      return false; // not the answer to the probe outstanding
    }
    next = Math.max(match + 1, Math.min(rejected, hint + 1));
    probeSent = false;
    return true;
  }

  @Override
  public String toString() {
    return state + " match=" + match + " next=" + next + (probeSent ? " paused" : "")
        + (state == State.SNAPSHOT ? " pendingSnapshot=" + pendingSnapshot : "")
        + " inflight=" + inflights.count();
  }

  /** The last indexes of the appends in flight, oldest first, in a fixed ring. */
  static final class Inflights {
    private final long[] buffer;
    private int start;
    private int count;

    Inflights(int size) {
      buffer = new long[size];
    }

    boolean full() {
      return count == buffer.length;
    }

    int count() {
      return count;
    }

    void add(long last) {
      if (full()) {
        throw new IllegalStateException("inflights full");
      }
      buffer[(start + count) % buffer.length] = last;
      count++;
    }

    void freeUpTo(long index) {
      while (count > 0 && buffer[start] <= index) {
        start = (start + 1) % buffer.length;
        count--;
      }
    }

    void freeFirst() {
      if (count > 0) {
        freeUpTo(buffer[start]);
      }
    }

    void reset() {
      start = 0;
      count = 0;
    }
  }
}
