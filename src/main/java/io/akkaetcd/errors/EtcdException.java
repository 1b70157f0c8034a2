package io.akkaetcd.errors;

/**
 * An etcd error raised anywhere, the services included: transport-neutral. The gRPC transport
 * turns it into its status as is; the in-process client hands it to the caller.
 */
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
