package io.akkaetcd.errors;

/**
 * The status codes of etcd's errors, numbered as gRPC's canonical codes (which the API layer maps
 * them to, and the JSON gateway to HTTP statuses). Kept here so that no layer below the API needs
 * gRPC to name an error.
 */
public enum ErrorCode {
  OK(0), CANCELLED(1), UNKNOWN(2), INVALID_ARGUMENT(3), DEADLINE_EXCEEDED(4), NOT_FOUND(5),
  ALREADY_EXISTS(6), PERMISSION_DENIED(7), RESOURCE_EXHAUSTED(8), FAILED_PRECONDITION(9), ABORTED(10),
  OUT_OF_RANGE(11), UNIMPLEMENTED(12), INTERNAL(13), UNAVAILABLE(14), DATA_LOSS(15), UNAUTHENTICATED(16);

  private final int value;

  ErrorCode(int value) {
    this.value = value;
  }

  /** The code's name as Go's codes.Code prints it ("Unauthenticated", "Canceled"). */
  public String goName() {
    if (this == CANCELLED) {
      return "Canceled";
    }
    StringBuilder b = new StringBuilder();
    for (String word : name().split("_")) {
      b.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
    }
    return b.toString();
  }

  /** The gRPC code number. */
  public int value() {
    return value;
  }
}
