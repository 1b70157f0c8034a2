package io.akkaetcd.errors;

/**
 * An error etcd returns as a plain Go error, without a gRPC status: grpc-go sends it with code
 * Unknown and its text. etcd's v3lock and v3election servers return their in-process client's
 * errors this way (that client has already turned each status into a plain error), so a missing
 * lease reaches a Lock caller as Unknown, not NotFound.
 */
public final class PlainError extends RuntimeException {
  public PlainError(String text) {
    super(text, null, false, false);
  }

  /** {@code failure} as etcd's client-side recipes return it: an etcd error loses its code. */
  public static Throwable of(Throwable failure) {
    Throwable cause = EtcdFailures.cause(failure);
    return cause instanceof EtcdException e ? new PlainError(e.getMessage()) : cause;
  }
}
