package io.akkaetcd.concurrency;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The first step of a call that may wait (Lock): its answer at once, or the wait still to do. A
 * transport answers {@link Done} as a plain unary call and only a {@link Waiting} one as a call it
 * must learn the cancel of; the wait ends, and undoes its step, when {@code canceled} completes.
 */
public sealed interface Attempt<R> {
  /** The answer, waiting first if needed; {@code canceled} completes once the caller has gone. */
  CompletionStage<R> answer(CompletionStage<Void> canceled);

  static <R> Attempt<R> done(R response) {
    return new Done<>(response);
  }

  static <R> Attempt<R> waiting(Function<CompletionStage<Void>, CompletionStage<R>> rest) {
    return new Waiting<>(rest);
  }

  /** No wait needed: the answer. */
  record Done<R>(R response) implements Attempt<R> {
    @Override
    public CompletionStage<R> answer(CompletionStage<Void> canceled) {
      return CompletableFuture.completedFuture(response);
    }
  }

  /** The wait, started by {@link #answer}. */
  record Waiting<R>(Function<CompletionStage<Void>, CompletionStage<R>> rest) implements Attempt<R> {
    @Override
    public CompletionStage<R> answer(CompletionStage<Void> canceled) {
      return rest.apply(canceled);
    }
  }
}
