package io.akkaetcd.concurrency;

import io.akkaetcd.errors.PlainError;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The recipes' answers fail as etcd's do: with their client's errors, code Unknown ({@link PlainError}). */
final class ClientErrors {
  private ClientErrors() {}

  static <T> CompletionStage<T> asClient(CompletionStage<T> result) {
    return result.exceptionallyCompose(e -> CompletableFuture.failedFuture(PlainError.of(e)));
  }
}
