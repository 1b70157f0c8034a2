package io.akkaetcd.api;

import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.EtcdError;
import akka.grpc.GrpcServiceException;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/** Turns whatever failed below the API into the gRPC status a client of etcd would see. */
public final class GrpcErrors {
  private GrpcErrors() {}

  public static RuntimeException toGrpc(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof EtcdException e) {
      return toGrpc(e);
    }
    if (cause instanceof GrpcServiceException g) {
      return g;
    }
    if (cause instanceof TimeoutException) {
      return GrpcErrors.toGrpc(EtcdError.TIMEOUT.exception());
    }
    return new GrpcServiceException(Status.INTERNAL.withDescription(String.valueOf(cause.getMessage())));
  }

  /** etcd's error as grpc-go's server sends it: the code and the exact text. */
  public static GrpcServiceException toGrpc(EtcdException e) {
    return new GrpcServiceException(status(e.error()));
  }

  /** The gRPC status of an etcd error. */
  public static Status status(EtcdError error) {
    return Status.fromCodeValue(error.code().value()).withDescription(error.text());
  }

  /**
   * Runs a request's handling and turns every failure, thrown at once or completed later, into the
   * gRPC status etcd would answer.
   */
  public static <T> CompletionStage<T> handled(Supplier<CompletionStage<T>> body) {
    CompletionStage<T> result;
    try {
      result = body.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(toGrpc(e));
    }
    return result.handle((r, e) -> {
      if (e != null) {
        throw toGrpc(e);
      }
      return r;
    });
  }

  /** A method or service not built yet: UNIMPLEMENTED, as grpc-go answers an unknown method. */
  public static GrpcServiceException unimplemented(String method) {
    return new GrpcServiceException(Status.UNIMPLEMENTED.withDescription(
        "unknown method " + method + " (not implemented by akka-etcd yet)"));
  }

  /** grpc-go's answer to a message over the server's receive limit (--max-request-bytes + 512 KiB). */
  public static GrpcServiceException messageTooLarge(int size, int limit) {
    return new GrpcServiceException(Status.RESOURCE_EXHAUSTED.withDescription(
        "grpc: received message larger than max (" + size + " vs. " + limit + ")"));
  }
}
