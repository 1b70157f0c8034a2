package io.akkaetcd.server;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Work started on a daemon thread of its own, beside a member's start: not on the common pool,
 * whose few threads the start's other branches and Akka's set-up may hold. The thread inherits the
 * caller's context class loader, which Akka reads.
 */
public final class DaemonThread {
  private DaemonThread() {}

  /** Starts {@code work} on a new daemon thread named {@code name}. */
  public static void run(String name, Runnable work) {
    Thread t = new Thread(work, name);
    t.setDaemon(true);
    t.start();
  }

  /** {@code work}'s result, or what it threw, computed on a new daemon thread named {@code name}. */
  public static <T> CompletableFuture<T> supply(String name, Supplier<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    run(name, () -> {
      try {
        result.complete(work.get());
      } catch (RuntimeException | Error e) {
        result.completeExceptionally(e);
      }
    });
    return result;
  }
}
