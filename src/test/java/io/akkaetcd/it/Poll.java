package io.akkaetcd.it;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/** Polling with a deadline, instead of sleeping for a guessed time. */
final class Poll {
  private Poll() {}

  /** The pause between two attempts of a poll. */
  static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  static void until(Duration timeout, String what, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(timeout);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      pause();
    }
  }
}
