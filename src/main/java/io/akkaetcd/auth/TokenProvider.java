package io.akkaetcd.auth;

import java.util.Optional;

/**
 * How tokens are made and read (etcd's TokenProvider), chosen by {@code --auth-token}. A token
 * is assigned when the Authenticate entry is applied, on every member; it is read on whichever
 * member a request reaches. Implementations are thread-safe: the applier assigns and
 * invalidates, request threads look up.
 */
public interface TokenProvider {
  /**
   * The random part of a token, drawn by the member that proposes Authenticate and carried in
   * the entry so every member assigns the same token ("" when the provider needs none).
   */
  default String tokenPrefix() {
    return "";
  }

  /**
   * The token for a user authenticated by the entry at {@code index} (at apply).
   *
   * @throws io.akkaetcd.errors.EtcdException etcd's error when this provider cannot issue one
   */
  String assign(String username, long authRevision, String prefix, long index);

  /**
   * The Raft index this member must have applied before {@link #info} can know the token: 0 when
   * there is nothing to wait for, -1 for a token that cannot be one of this provider's.
   */
  default long requiredIndex(String token) {
    return 0;
  }

  /**
   * Who the token stands for, or empty for an unknown, expired or forged token (etcd's
   * "invalid auth token"). {@code authRevision}: the store's, for tokens that carry none.
   */
  Optional<AuthInfo> info(String token, long authRevision);

  /** Drops the user's tokens (user deleted, password changed); nothing for stateless tokens. */
  default void invalidateUser(String username) {}

  /** Auth turned on (or found on at recovery): tokens may be assigned. */
  default void enable() {}

  /** Auth turned off: every token held goes. */
  default void disable() {}
}
