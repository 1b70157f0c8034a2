package io.akkaetcd.gateway;

import io.akkaetcd.api.GrpcErrors;
import io.grpc.Status;

/**
 * The gateway's answers to failures, as etcd 3.4's grpc-gateway writes them: a unary call's body
 * {@code {"error":m,"message":m,"code":N}} with the HTTP status of the gRPC code, a stream's last
 * chunk {@code {"error":{"grpc_code":N,"http_code":H,"message":m,"http_status":text}}}. A
 * service's failure gets its gRPC status from {@link GrpcErrors}, the one mapping of both transports.
 */
final class GatewayErrors {
  private GatewayErrors() {}

  /** The gRPC status a call failed with, as a gRPC client of the member would see it. */
  static Status status(Throwable failure) {
    Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    RuntimeException grpc = GrpcErrors.toGrpc(cause);
    return grpc instanceof akka.grpc.GrpcServiceException g ? g.status() : Status.INTERNAL;
  }

  /** grpc-gateway's HTTPStatusFromCode (v1, as vendored by etcd 3.4). */
  static int httpStatus(Status.Code code) {
    return switch (code) {
      case OK -> 200;
      case CANCELLED -> 408;
      case INVALID_ARGUMENT, OUT_OF_RANGE -> 400;
      case DEADLINE_EXCEEDED -> 504;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS, ABORTED -> 409;
      case PERMISSION_DENIED -> 403;
      case UNAUTHENTICATED -> 401;
      case RESOURCE_EXHAUSTED -> 429;
      case FAILED_PRECONDITION -> 412;
      case UNIMPLEMENTED -> 501;
      case UNAVAILABLE -> 503;
      case UNKNOWN, INTERNAL, DATA_LOSS -> 500;
    };
  }

  /** A unary call's error body. */
  static String body(Status status) {
    String message = JsonMapping.quoted(message(status));
    return "{\"error\":" + message + ",\"message\":" + message + ",\"code\":" + status.getCode().value() + "}";
  }

  /** A stream's error chunk, newline-terminated as every chunk. */
  static String streamChunk(Status status) {
    int http = httpStatus(status.getCode());
    return "{\"error\":{\"grpc_code\":" + status.getCode().value() + ",\"http_code\":" + http
        + ",\"message\":" + JsonMapping.quoted(message(status)) + ",\"http_status\":"
        + JsonMapping.quoted(akka.http.javadsl.model.StatusCodes.get(http).reason()) + "}}\n";
  }

  private static String message(Status status) {
    return status.getDescription() == null ? "" : status.getDescription();
  }
}
