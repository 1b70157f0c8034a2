package io.akkaetcd.lease;

/**
 * Told of lease events as etcd 3.4's lessor counts them (etcd_debugging_lease_*): grants and
 * revokes as they are applied (on every member), renewals as the leader's keeper takes them.
 * Called on the applier's or a keep-alive's thread: must take no lock.
 */
public interface LeaseObserver {
  /** Observes nothing. */
  LeaseObserver NONE = new LeaseObserver() { };

  /** A lease of {@code ttlSeconds} (after the minimum is applied) was granted. */
  default void granted(long ttlSeconds) {}

  /** A lease was revoked (by request or on expiry). */
  default void revoked() {}

  /** A known lease was renewed by a keep-alive. */
  default void renewed() {}
}
