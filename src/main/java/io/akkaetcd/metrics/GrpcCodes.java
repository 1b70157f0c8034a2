package io.akkaetcd.metrics;

import java.util.List;

/** gRPC's status codes by their Go names (codes.Code.String()), indexed by number 0..16. */
public final class GrpcCodes {
  private GrpcCodes() {}

  public static final List<String> NAMES = List.of("OK", "Canceled", "Unknown", "InvalidArgument",
      "DeadlineExceeded", "NotFound", "AlreadyExists", "PermissionDenied", "ResourceExhausted",
      "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented", "Internal", "Unavailable",
      "DataLoss", "Unauthenticated");

  /** The Go name of code {@code value}; Unknown for a number outside 0..16. */
  public static String name(int value) {
    return value >= 0 && value < NAMES.size() ? NAMES.get(value) : "Unknown";
  }
}
