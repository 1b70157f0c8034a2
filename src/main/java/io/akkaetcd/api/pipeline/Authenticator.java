package io.akkaetcd.api.pipeline;

/**
 * Who makes a call, from its metadata (etcd's {@code token}). The seam etcd's auth (#27) fills;
 * until then every call is anonymous and allowed.
 */
@FunctionalInterface
public interface Authenticator {
  /** Every call is allowed and anonymous: etcd with auth disabled. */
  Authenticator ALLOW_ALL = call -> null;

  /**
   * @return the call's user, or null for none (auth disabled); throws an
   *     {@link io.akkaetcd.errors.EtcdException} (e.g. an invalid token) to refuse the call
   */
  String authenticate(Call call);
}
