package io.akkaetcd.alarm;

import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.util.List;

/**
 * etcd's backend quota (etcdserver/quota.go, v3.4): what a request is estimated to add to the
 * backend, and whether it fits. A request fits while {@code used + cost < quota}; puts cost a
 * fixed overhead plus key and value, a txn its costlier branch, a lease grant a fixed overhead,
 * anything else nothing. Pure.
 */
public final class Quota {
  /** etcd's estimate of a key's metadata. */
  static final long KV_OVERHEAD = 256;
  /** etcd's estimate of a stored lease. */
  static final long LEASE_OVERHEAD = 64;

  private Quota() {}

  /**
   * Whether a request of {@code cost} fits a backend of which {@code used} bytes are taken. A
   * negative quota checks nothing, as etcd's passthroughQuota for a negative --quota-backend-bytes.
   */
  public static boolean available(long used, long cost, long quota) {
    return quota < 0 || used + cost < quota;
  }

  public static long cost(PutRequest p) {
    return KV_OVERHEAD + p.getKey().size() + p.getValue().size();
  }

  /** The costlier of the two branches, nested txns included. */
  public static long cost(TxnRequest t) {
    return Math.max(cost(t.getSuccessList()), cost(t.getFailureList()));
  }

  public static long leaseGrantCost() {
    return LEASE_OVERHEAD;
  }

  private static long cost(List<RequestOp> ops) {
    long sum = 0;
    for (RequestOp op : ops) {
      if (op.hasRequestPut()) {
        sum += cost(op.getRequestPut());
      } else if (op.hasRequestTxn()) {
        sum += cost(op.getRequestTxn());
      }
    }
    return sum;
  }

  /**
   * What the applier refuses with NO_SPACE while a NOSPACE alarm is raised (etcd's
   * applierV3Capped): puts, txns that would put, lease grants. Reads, deletes, compaction,
   * revokes and the alarm requests that clear it go on.
   */
  public static boolean refusedWhileNoSpace(InternalRaftRequest r) {
    return switch (r.getRequestCase()) {
      case PUT, LEASE_GRANT -> true;
      case TXN -> cost(r.getTxn()) > 0;
      default -> false;
    };
  }
}
