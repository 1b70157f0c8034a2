package io.akkaetcd.api;

import akka.actor.ActorSystem;
import akka.grpc.GrpcServiceException;
import akka.grpc.Trailers;
import akka.grpc.javadsl.GrpcExceptionHandler;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.errors.PlainError;
import io.grpc.Status;

/**
 * The gRPC transport's mapping of failures: whatever a service failed with becomes the gRPC status
 * a client of etcd would see. Services fail transport-neutrally ({@link EtcdException}); only the
 * gRPC handlers call this.
 */
public final class GrpcErrors {
  private GrpcErrors() {}

  /** grpc-go's receive limit over the request limit, as etcd configures it. */
  public static final int RECEIVE_OVERHEAD_BYTES = 512 * 1024;

  /**
   * The gRPC status of a service's failure: etcd's code and text for an {@link EtcdException} (or
   * a timeout), a {@link GrpcServiceException} as is, and INTERNAL with the message for anything
   * else. The one place the gRPC transport maps service failures.
   */
  public static RuntimeException toGrpc(Throwable t) {
    Throwable cause = EtcdFailures.cause(t);
    if (cause instanceof EtcdException e) {
      return toGrpc(e);
    }
    if (cause instanceof GrpcServiceException g) {
      return g;
    }
    if (cause instanceof PlainError p) {
      return new GrpcServiceException(Status.UNKNOWN.withDescription(p.getMessage()));
    }
    return new GrpcServiceException(Status.INTERNAL.withDescription(String.valueOf(cause.getMessage())));
  }

  /**
   * For streams ({@link GrpcServiceHandler} marshals them as Akka gRPC's generated handlers do): a
   * failure mapped by {@link #toGrpc(Throwable)}, then written as Akka gRPC writes a status; an
   * {@link UnsupportedOperationException} stays Akka gRPC's UNIMPLEMENTED.
   */
  public static final akka.japi.Function<ActorSystem, akka.japi.Function<Throwable, Trailers>> MAPPER =
      system -> {
        akka.japi.Function<Throwable, Trailers> standard = GrpcExceptionHandler.defaultMapper().apply(system);
        return t -> standard.apply(EtcdFailures.cause(t) instanceof UnsupportedOperationException u ? u : toGrpc(t));
      };

  /** etcd's error as grpc-go's server sends it: the code and the exact text. */
  public static GrpcServiceException toGrpc(EtcdException e) {
    return new GrpcServiceException(status(e.error()));
  }

  /** The gRPC status of an etcd error. */
  public static Status status(EtcdError error) {
    return Status.fromCodeValue(error.code().value()).withDescription(error.text());
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
