package io.akkaetcd.it;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition by polling it until a deadline; the one place tests pause. */
final class Poll {
  private static final Duration INTERVAL = Duration.ofMillis(100);

  private Poll() {}

  /** Polls {@code condition} until true; fails with {@code what} once {@code timeout} passed. */
  static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
      }
      pause();
    }
  }

  static void pause() {
    try {
      Thread.sleep(INTERVAL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
