package io.akkaetcd.api.pipeline;

import io.akkaetcd.auth.AuthInfo;

/**
 * Who makes a call, from its metadata (etcd's {@code token}): the member's token check, or
 * {@link #ALLOW_ALL} (every call anonymous).
 */
@FunctionalInterface
public interface Authenticator {
  /** Every call is allowed and anonymous: etcd with auth disabled. */
  Authenticator ALLOW_ALL = call -> null;

  /**
   * @return the call's user and auth revision, or null for none (auth disabled); throws an
   *     {@link io.akkaetcd.errors.EtcdException} (e.g. an invalid token) to refuse the call
   */
  AuthInfo authenticate(Call call);
}
