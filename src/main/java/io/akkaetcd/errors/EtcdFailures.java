package io.akkaetcd.errors;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Failures as a service reports them, whatever the transport: an {@link EtcdException} thrown at
 * once becomes a failed stage, and a stage's failure is read through the wrappers the JDK adds.
 * Each transport maps what is left (gRPC status, HTTP status, or the exception itself in-process).
 */
public final class EtcdFailures {
  private EtcdFailures() {}

  /**
   * Runs a request's handling and returns its stage; what it throws at once becomes the stage's
   * failure. Adds no stage: the happy path costs nothing.
   */
  public static <T> CompletionStage<T> guarded(Supplier<CompletionStage<T>> body) {
    try {
      return body.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The failure a client should see: unwrapped from {@link CompletionException} and
   * {@link ExecutionException}; a timeout (an ask to another member, say) is etcd's "request timed
   * out", as etcd answers a request whose deadline passed.
   */
  public static Throwable cause(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TimeoutException ? EtcdError.TIMEOUT.exception() : cause;
  }
}
