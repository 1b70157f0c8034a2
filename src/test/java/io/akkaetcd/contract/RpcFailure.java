package io.akkaetcd.contract;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * An etcd error normalised across transports: the gRPC status code's name (INVALID_ARGUMENT, ...)
 * and etcd's exact text. The gRPC transport reads both from the status; the in-process one from
 * the {@code EtcdError}, whose code is numbered as gRPC's.
 */
final class RpcFailure extends RuntimeException {
  final String code;
  final String text;

  RpcFailure(String code, String text) {
    super(code + ": " + text, null, false, false);
    this.code = code;
    this.text = text;
  }

  /** {@code stage} with its failure passed through {@code normalise} (which returns others as they are). */
  static <T> CompletionStage<T> normalised(CompletionStage<T> stage, Function<Throwable, Throwable> normalise) {
    CompletableFuture<T> out = new CompletableFuture<>();
    stage.whenComplete((r, e) -> {
      if (e == null) {
        out.complete(r);
      } else {
        out.completeExceptionally(normalise.apply(e instanceof CompletionException c && c.getCause() != null
            ? c.getCause() : e));
      }
    });
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RpcFailure f && f.code.equals(code) && f.text.equals(text);
  }

  @Override
  public int hashCode() {
    return Objects.hash(code, text);
  }
}
