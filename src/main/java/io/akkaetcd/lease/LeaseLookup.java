package io.akkaetcd.lease;

/**
 * What the KV applier needs to know about leases: whether a lease id is granted. Implementations
 * must answer from applied state only (the lessor as of this raft index), so every member decides
 * the same way.
 */
@FunctionalInterface
public interface LeaseLookup {

  /** A lookup that knows no lease: every put with a lease fails with "requested lease not found". */
  LeaseLookup NONE = leaseId -> false;

  boolean exists(long leaseId);
}
