package io.akkaetcd.api;

/**
 * How a member's auth stages read its flags: {@code certificateUsers} is {@code --client-cert-auth}
 * (a call without a token acts as its client certificate's CN, etcd's AuthInfoFromTLS);
 * {@code strictMatrix} is {@code --experimental-strict-auth-matrix} (etcd 3.5.28's checks on
 * top of 3.4's: {@link RequestAuthorizer}).
 */
public record AuthPolicy(boolean certificateUsers, boolean strictMatrix) {
  /** etcd 3.4 without client certificate auth. */
  public static final AuthPolicy DEFAULT = new AuthPolicy(false, false);
}
