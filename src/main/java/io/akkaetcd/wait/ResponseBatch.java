package io.akkaetcd.wait;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Hands the responses that one batch of work produces to the client connections together, so a
 * connection writes the ones it carries in one TCP write instead of one write each.
 *
 * <p>Rule: completed inside one task on the default dispatcher, the continuations queue on that
 * worker ahead of the connections they wake, so each connection finds all its responses at once
 * (why, and what it saved: docs/results-history.md, 2026-11-25).
 *
 * <p>Inside {@link #deliverTogether} (on its thread) {@link #complete} holds a completion back;
 * outside it completes at once. Responses of readers, which come one at a time, are not held.
 */
public final class ResponseBatch {
  private static final ThreadLocal<List<Runnable>> OPEN = new ThreadLocal<>();

  private ResponseBatch() {}

  /**
   * Runs {@code work}, holding back every {@link #complete} it makes on this thread, then hands
   * them to {@code connections} as one task that completes them in order; a single one (a lone
   * client's put) completes here, as it would without a batch. Batches do not nest.
   */
  public static void deliverTogether(Runnable work, Executor connections) {
    if (OPEN.get() != null) {
      throw new IllegalStateException("response batches do not nest");
    }
    List<Runnable> held = new ArrayList<>();
    OPEN.set(held);
    try {
      work.run();
    } finally {
      OPEN.remove();
      if (held.size() == 1) {
        held.get(0).run(); // nothing to write it with: the hand-off would only cost a task
      } else if (!held.isEmpty()) {
        try {
          connections.execute(() -> held.forEach(Runnable::run));
        } catch (RejectedExecutionException e) { // the system is stopping: answer here
          held.forEach(Runnable::run);
        }
      }
    }
  }

  /** Completes {@code future} with {@code value}: at once, or when the open batch is delivered. */
  public static <T> void complete(CompletableFuture<T> future, T value) {
    List<Runnable> held = OPEN.get();
    if (held == null) {
      future.complete(value);
    } else {
      held.add(() -> future.complete(value));
    }
  }
}
