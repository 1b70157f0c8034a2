package io.akkaetcd.apply;

import io.akkaetcd.errors.EtcdError;
import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The checks etcd v3.5's gRPC KV server makes before a request reaches raft
 * (server/etcdserver/api/v3rpc/key.go): same rules, same order, same errors. Everything else
 * (compacted or future revisions, missing leases, ignore_value on a missing key) is decided when
 * the request is applied, as in etcd. Stateless; safe from any thread.
 */
public final class KvRequestValidator {

  private KvRequestValidator() {}

  public static void checkRange(RangeRequest r) {
    if (r.getKey().isEmpty()) {
      throw EtcdError.EMPTY_KEY.exception();
    }
  }

  public static void checkPut(PutRequest r) {
    if (r.getKey().isEmpty()) {
      throw EtcdError.EMPTY_KEY.exception();
    }
    if (r.getIgnoreValue() && !r.getValue().isEmpty()) {
      throw EtcdError.VALUE_PROVIDED.exception();
    }
    if (r.getIgnoreLease() && r.getLease() != 0) {
      throw EtcdError.LEASE_PROVIDED.exception();
    }
  }

  public static void checkDeleteRange(DeleteRangeRequest r) {
    if (r.getKey().isEmpty()) {
      throw EtcdError.EMPTY_KEY.exception();
    }
  }

  /**
   * etcd's gRPC layer checks nothing on Compact but the caller's permission (auth is not ours
   * here): a compacted or future revision is reported by the store when the compaction is applied.
   * Kept so every KV method has its check and the seam exists if etcd ever adds one.
   */
  public static void checkCompaction(CompactionRequest r) {
    // intentionally empty: see above
  }

  /**
   * Shape checks first, over the whole request tree, then the duplicate-write rule for each
   * top-level branch on its own: success and failure never run together, so they may write the
   * same key.
   */
  public static void checkTxn(TxnRequest r, int maxTxnOps) {
    checkTxnShape(r, maxTxnOps);
    checkWrites(r.getSuccessList());
    checkWrites(r.getFailureList());
  }

  /**
   * The shape checks of a txn (empty keys, empty ops, nested txns) without the op budget: what the
   * applier checks again before writing, so that nothing is ever half-applied.
   */
  public static void checkTxnOps(TxnRequest r) {
    checkTxnShape(r, Integer.MAX_VALUE);
  }

  /**
   * A txn's size is its longest list (compares, success or failure), not their sum, and it must
   * not exceed the budget. A nested txn gets what its parent left over: budget minus the parent's
   * size, so the limit bounds the sum along every nesting path.
   */
  private static void checkTxnShape(TxnRequest r, int budget) {
    int size = Math.max(r.getCompareCount(), Math.max(r.getSuccessCount(), r.getFailureCount()));
    if (size > budget) {
      throw EtcdError.TOO_MANY_OPS.exception();
    }
    for (var c : r.getCompareList()) {
      if (c.getKey().isEmpty()) {
        throw EtcdError.EMPTY_KEY.exception();
      }
    }
    for (RequestOp op : r.getSuccessList()) {
      checkOp(op, budget - size);
    }
    for (RequestOp op : r.getFailureList()) {
      checkOp(op, budget - size);
    }
  }

  private static void checkOp(RequestOp op, int budget) {
    switch (op.getRequestCase()) {
      case REQUEST_RANGE -> checkRange(op.getRequestRange());
      case REQUEST_PUT -> checkPut(op.getRequestPut());
      case REQUEST_DELETE_RANGE -> checkDeleteRange(op.getRequestDeleteRange());
      case REQUEST_TXN -> checkTxnShape(op.getRequestTxn(), budget);
      // an op with nothing set: etcd answers "key not found", odd as it reads
      default -> throw EtcdError.KEY_NOT_FOUND.exception();
    }
  }

  // ---- duplicate writes (etcd's checkIntervals) ----

  /**
   * The writes of one list of ops, including those of nested txns, as etcd collects them.
   * Rules, mirrored exactly:
   * <ul>
   *   <li>a put conflicts with an earlier-collected put of the same key and with any delete of
   *       this level or collected from an earlier nested txn whose range holds the key;</li>
   *   <li>deletes never conflict with deletes;</li>
   *   <li>a nested txn's success and failure puts may share keys (only one of them runs), but a
   *       failure put may not repeat a key put by an earlier nested txn;</li>
   *   <li>a nested txn's puts are checked against deletes known so far only, so a put in one
   *       nested txn followed by a delete of that key in a later nested txn passes;</li>
   *   <li>this level's puts are checked last, against everything collected below.</li>
   * </ul>
   * A delete whose range_end is "\0" (from key to the end) is, as in etcd, taken literally as the
   * empty interval [key, "\0") here and so conflicts with no put.
   */
  private static Writes checkWrites(List<RequestOp> ops) {
    Writes writes = new Writes();
    for (RequestOp op : ops) {
      if (op.getRequestCase() == RequestOp.RequestCase.REQUEST_DELETE_RANGE) {
        writes.addDelete(op.getRequestDeleteRange());
      }
    }
    for (RequestOp op : ops) {
      if (op.getRequestCase() != RequestOp.RequestCase.REQUEST_TXN) {
        continue;
      }
      Writes then = checkWrites(op.getRequestTxn().getSuccessList());
      Writes otherwise = checkWrites(op.getRequestTxn().getFailureList());
      for (ByteString key : then.puts) {
        if (writes.puts.contains(key) || writes.deletes(key)) {
          throw EtcdError.DUPLICATE_KEY.exception();
        }
        writes.puts.add(key);
      }
      for (ByteString key : otherwise.puts) {
        if ((writes.puts.contains(key) && !then.puts.contains(key)) || writes.deletes(key)) {
          throw EtcdError.DUPLICATE_KEY.exception();
        }
        writes.puts.add(key);
      }
      writes.addDeletes(then);
      writes.addDeletes(otherwise);
    }
    for (RequestOp op : ops) {
      if (op.getRequestCase() != RequestOp.RequestCase.REQUEST_PUT) {
        continue;
      }
      ByteString key = op.getRequestPut().getKey();
      if (writes.puts.contains(key) || writes.deletes(key)) {
        throw EtcdError.DUPLICATE_KEY.exception();
      }
      writes.puts.add(key);
    }
    return writes;
  }

  /** Keys put and ranges deleted by a list of ops; point deletes kept apart for a quick lookup. */
  private static final class Writes {
    final Set<ByteString> puts = new HashSet<>();
    final Set<ByteString> deletedKeys = new HashSet<>();
    /** [from, to) ranges; to is never empty. */
    final List<ByteString[]> deletedRanges = new ArrayList<>();

    void addDelete(DeleteRangeRequest d) {
      if (d.getRangeEnd().isEmpty()) {
        deletedKeys.add(d.getKey());
      } else {
        deletedRanges.add(new ByteString[] {d.getKey(), d.getRangeEnd()});
      }
    }

    void addDeletes(Writes child) {
      deletedKeys.addAll(child.deletedKeys);
      deletedRanges.addAll(child.deletedRanges);
    }

    boolean deletes(ByteString key) {
      if (deletedKeys.contains(key)) {
        return true;
      }
      for (ByteString[] range : deletedRanges) {
        if (compare(range[0], key) <= 0 && compare(key, range[1]) < 0) {
          return true;
        }
      }
      return false;
    }
  }

  /** Unsigned byte-wise order, as Go compares strings. */
  static int compare(ByteString a, ByteString b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = Integer.compare(a.byteAt(i) & 0xff, b.byteAt(i) & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }
}
