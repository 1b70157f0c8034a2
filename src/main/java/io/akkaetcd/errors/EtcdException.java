package io.akkaetcd.errors;

/** An etcd error raised anywhere below the API; the API turns it into its gRPC status as is. */
public final class EtcdException extends RuntimeException {
  private final EtcdError error;

  public EtcdException(EtcdError error) {
    super(error.text(), null, false, false);
    this.error = error;
  }

  public EtcdError error() {
    return error;
  }
}
