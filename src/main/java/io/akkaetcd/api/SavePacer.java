package io.akkaetcd.api;

import java.io.InterruptedIOException;
import java.util.function.LongSupplier;

/**
 * Paces a snapshot save while the member applies writes. The save's writer already runs at the
 * lowest CPU priority, but what it produces costs CPU downstream at normal priority (the thread
 * that sends the messages, the client that stores them), in proportion to the bytes sent. So while
 * the applied index moves by at least {@code busyWrites} entries a second, the image goes out at
 * no more than {@code busyBytesPerSecond}; a member with no writes saves at full speed.
 *
 * <p>Invariant: over any busy stretch, the bytes let through are at most the stretch's length ×
 * the rate + one {@link #BURST} (a token bucket). Busyness is judged over windows of
 * {@link #WINDOW_NANOS}, so a save notices a load within about that long. Used by one thread.
 */
final class SavePacer {
  /** Bytes a busy stretch may send at once before the rate applies: eight 32 KiB messages. */
  static final long BURST = 256 * 1024;
  static final long WINDOW_NANOS = 100_000_000L;

  /** Time as the pacer sees it; the test's clock moves only when the pacer sleeps. */
  interface Clock {
    long nanoTime();

    void sleepNanos(long nanos) throws InterruptedException;

    Clock SYSTEM = new Clock() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public void sleepNanos(long nanos) throws InterruptedException {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      }
    };
  }

  /** No pacing: every save at full speed. */
  static final SavePacer OFF = new SavePacer(() -> 0, 0, 1, WINDOW_NANOS, Clock.SYSTEM);

  private final LongSupplier appliedIndex;
  private final long busyBytesPerSecond;
  private final long busyWrites;
  private final long windowNanos;
  private final Clock clock;
  private long windowStart;
  private long windowIndex;
  private boolean busy;
  /** Bytes the bucket holds (negative: owed, slept off before the next message); refilled at the rate. */
  private double credit = BURST;
  private long refilled;
  private long paced;

  /**
   * Paces at {@code busyBytesPerSecond} (0: never) while {@code appliedIndex} moves by at least
   * {@code busyWrites} a second, judged over windows of {@code windowNanos}.
   */
  SavePacer(LongSupplier appliedIndex, long busyBytesPerSecond, long busyWrites, long windowNanos, Clock clock) {
    this.appliedIndex = appliedIndex;
    this.busyBytesPerSecond = busyBytesPerSecond;
    this.busyWrites = Math.max(1, busyWrites);
    this.windowNanos = Math.max(1, windowNanos);
    this.clock = clock;
    this.windowStart = clock.nanoTime();
    this.windowIndex = appliedIndex.getAsLong();
    this.refilled = windowStart;
  }

  /** The pacer the system properties ask for (docs/snapshots.md), over the store's applied index. */
  static SavePacer configured(LongSupplier appliedIndex) {
    long mib = Long.getLong("akka-etcd.snapshot.busy-rate-mib", 16);
    long writes = Long.getLong("akka-etcd.snapshot.busy-writes", 1000);
    return mib <= 0 ? OFF : new SavePacer(appliedIndex, mib * 1024 * 1024, writes, WINDOW_NANOS, Clock.SYSTEM);
  }

  /** The time this save has spent waiting for the rate. */
  long pacedNanos() {
    return paced;
  }

  /** Whether the last window counted the member busy. */
  boolean busy() {
    return busy;
  }

  /** Called before {@code bytes} more of the save go out; returns once they may. */
  void send(int bytes) throws InterruptedIOException {
    if (busyBytesPerSecond <= 0) {
      return;
    }
    long now = clock.nanoTime();
    judge(now);
    if (!busy) {
      credit = BURST;
      refilled = now;
      return;
    }
    credit = Math.min(BURST, credit + (now - refilled) * (double) busyBytesPerSecond / 1e9);
    refilled = now;
    credit -= bytes;
    if (credit < 0) {
      long owed = (long) Math.ceil(-credit * 1e9 / busyBytesPerSecond);
      try {
        clock.sleepNanos(owed);
        paced += owed;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("snapshot save interrupted");
      }
    }
  }

  /** Closes the window once it is {@code windowNanos} old: busy when the index moved fast enough in it. */
  private void judge(long now) {
    long elapsed = now - windowStart;
    if (elapsed < windowNanos) {
      return;
    }
    long index = appliedIndex.getAsLong();
    busy = (index - windowIndex) * 1_000_000_000L >= busyWrites * elapsed;
    windowStart = now;
    windowIndex = index;
  }
}
