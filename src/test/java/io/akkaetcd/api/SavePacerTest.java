package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InterruptedIOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The save's pacing on a clock that moves only by what the test spends and what the pacer sleeps:
 * no wait at all while the member applies nothing, the busy rate (plus one burst) while it does,
 * full speed again a window after the writes stop.
 */
class SavePacerTest {
  private static final long RATE = 16L * 1024 * 1024;
  private static final int CHUNK = 32 * 1024;

  /** Nanoseconds; the applied index grows at {@code writesPerSecond} of this time. */
  private static final class FakeTime implements SavePacer.Clock {
    long now;
    long slept;
    long index;
    long writesPerSecond;

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void sleepNanos(long nanos) {
      advance(nanos);
      slept += nanos;
    }

    /** Time the writer spends producing, or that passes between calls. */
    void advance(long nanos) {
      index += writesPerSecond * nanos / 1_000_000_000L;
      now += nanos;
    }
  }

  /** No writes, or fewer than the threshold of 1,000 a second. */
  @ParameterizedTest
  @ValueSource(longs = {0, 500})
  void aMemberWithFewWritesNeverWaits(long writesPerSecond) throws InterruptedIOException {
    FakeTime time = new FakeTime();
    time.writesPerSecond = writesPerSecond;
    SavePacer pacer = new SavePacer(() -> time.index, RATE, 1000, SavePacer.WINDOW_NANOS, time);
    sendChunks(pacer, time, 20_000); // 625 MiB, one chunk every 50 µs: 1 s of the fake time
    assertFalse(pacer.busy());
    assertEquals(0, time.slept);
  }

  @Test
  void aBusyMemberGetsTheRateThenFullSpeedOnceWritesStop() throws InterruptedIOException {
    FakeTime time = new FakeTime();
    time.writesPerSecond = 20_000;
    SavePacer pacer = new SavePacer(() -> time.index, RATE, 1000, SavePacer.WINDOW_NANOS, time);

    // The first window (100 ms) is judged when it ends; from then on every byte is paced.
    while (time.now < SavePacer.WINDOW_NANOS) {
      pacer.send(CHUNK);
      time.advance(50_000);
    }
    pacer.send(CHUNK);
    assertTrue(pacer.busy());
    long busyFrom = time.now;
    long bytes = 0;
    for (int i = 0; i < 2_000; i++) { // 62.5 MiB, at full speed 0.1 s
      pacer.send(CHUNK);
      bytes += CHUNK;
      time.advance(50_000);
    }
    double seconds = (time.now - busyFrom) / 1e9;
    String sent = bytes + " bytes in " + seconds + " s";
    assertTrue(bytes <= RATE * seconds + SavePacer.BURST, sent + ": over the rate");
    assertTrue(bytes >= RATE * seconds * 0.95, sent + ": far under the rate");

    time.writesPerSecond = 0;
    long sleptBusy = time.slept;
    sendChunks(pacer, time, 10_000);
    assertFalse(pacer.busy());
    // At most the window in which the writes stopped is still paced: 100 ms of sleeps at most.
    assertTrue(time.slept - sleptBusy <= 2 * SavePacer.WINDOW_NANOS, () -> "slept " + (time.slept - sleptBusy) + " ns after the writes stopped");
  }

  @Test
  void offNeverWaits() throws InterruptedIOException {
    FakeTime time = new FakeTime();
    time.writesPerSecond = 50_000;
    SavePacer pacer = new SavePacer(() -> time.index, 0, 1000, SavePacer.WINDOW_NANOS, time);
    sendChunks(pacer, time, 20_000);
    assertEquals(0, time.slept);
  }

  /** {@code n} messages of {@link #CHUNK} bytes, the writer spending 50 µs on each. */
  private static void sendChunks(SavePacer pacer, FakeTime time, int n) throws InterruptedIOException {
    for (int i = 0; i < n; i++) {
      pacer.send(CHUNK);
      time.advance(50_000);
    }
  }
}
