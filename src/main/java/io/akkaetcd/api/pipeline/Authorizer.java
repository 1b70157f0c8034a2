package io.akkaetcd.api.pipeline;

/**
 * Whether the call's {@linkplain Call#user user} may make it: etcd checks a read's keys against
 * the user's roles before serving it (writes are checked again when applied). The seam etcd's
 * auth (#27) fills; until then everything is permitted.
 */
@FunctionalInterface
public interface Authorizer {
  /** Everything is permitted: etcd with auth disabled. */
  Authorizer ALLOW_ALL = (call, request) -> { };

  /**
   * Refuses a call by throwing an {@link io.akkaetcd.errors.EtcdException} (etcd's permission
   * denied); {@code request} is null for a stream.
   */
  void authorize(Call call, Object request);

  /**
   * Whether each request on an open stream of {@code method} is also checked, as its own caller
   * at the store's current revision (etcd 3.5.28 checks each LeaseRenew); by default only the
   * stream's opening is.
   */
  default boolean checksEachRequest(String method) {
    return false;
  }
}
