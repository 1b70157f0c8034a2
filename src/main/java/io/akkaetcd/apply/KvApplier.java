package io.akkaetcd.apply;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.lease.LeaseLookup;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.mvcc.KeyOrder;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.mvcc.KvStore.RangeResult;
import io.akkaetcd.mvcc.RangeRows;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.etcdserverpb.ResponseOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * etcd's applierV3 for the KV service (server/etcdserver/apply.go, v3.5) over a {@link KvStore}:
 * Range, Put, DeleteRange, Txn and Compaction with etcd's exact semantics and response headers.
 *
 * <p>Stateless apart from the {@link LeaseLookup}. The read methods ({@link #range},
 * {@link #txnReadOnly}) may run on any thread; the write methods ({@link #put},
 * {@link #deleteRange}, {@link #txn}, {@link #apply}, {@link #compact}) only on the MVCC applier,
 * which calls {@link KvStore#commitBatch()} after a batch of entries.
 *
 * <p>Invariants of the write path: every entry runs in exactly one {@code beginTxn(raftIndex)} ...
 * {@code end()}, so a txn is one revision however many writes it holds; every error is raised
 * before the first write (the txn is then ended having written nothing), so a failing request
 * never leaves anything half-applied. Only {@code header.revision} is set on responses; the API
 * fills in cluster_id, member_id and raft_term.
 */
public final class KvApplier {

  private static final Comparator<ByteString> BYTES = KeyOrder.COMPARATOR;
  private static final ByteString GTE = ByteString.copyFrom(new byte[] {0});

  private final LeaseLookup leases;
  private final TxnObserver observer;

  public KvApplier(LeaseLookup leases) {
    this(leases, TxnObserver.NONE);
  }

  /** @param observer told what each request's MVCC transaction did (etcd_mvcc_*_total) */
  public KvApplier(LeaseLookup leases, TxnObserver observer) {
    this.leases = leases;
    this.observer = observer;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /**
   * A Range at the current revision (or at {@code r.revision} for time travel). The header
   * carries the current store revision even for time travel, as etcd does.
   */
  public RangeResponse range(KvStore store, RangeRequest r) {
    validate(r);
    View view = new StoreView(store, store.currentRevision());
    try {
      return range(view, r);
    } finally {
      view.ended(observer);
    }
  }

  /**
   * A Range answered by its stored rows ({@link #answersWithRows}), for a transport that encodes
   * the response from them rather than building it: the header's revision, the rows and whether
   * more keys lie past the limit.
   */
  public record RowsAnswer(long revision, RangeRows rows, boolean more) {}

  /**
   * Whether {@link #rangeRows} can answer {@code r}: no filters, no count only, and in ascending key
   * order, which is the store's; anything else is sorted or filtered in memory by {@link #range}.
   */
  public static boolean answersWithRows(RangeRequest r) {
    boolean filtered = r.getMinModRevision() != 0 || r.getMaxModRevision() != 0
        || r.getMinCreateRevision() != 0 || r.getMaxCreateRevision() != 0;
    int order = r.getSortOrderValue();
    return !filtered && !r.getCountOnly() && r.getSortTarget() == RangeRequest.SortTarget.KEY
        && (order == RangeRequest.SortOrder.NONE_VALUE || order == RangeRequest.SortOrder.ASCEND_VALUE);
  }

  /**
   * {@link #range} as rows: the same keys, count and more, with the header at the current revision.
   *
   * @throws IllegalArgumentException if {@code r} is not {@link #answersWithRows}
   */
  public RowsAnswer rangeRows(KvStore store, RangeRequest r) {
    if (!answersWithRows(r)) {
      throw new IllegalArgumentException("a sorted, filtered or count-only range is built in memory");
    }
    validate(r);
    long rev = store.currentRevision();
    if (r.getRevision() > rev) {
      throw EtcdError.FUTURE_REV.exception();
    }
    RangeRows rows = store.rangeRows(r.getKey(), r.getRangeEnd(), r.getRevision() > 0 ? r.getRevision() : rev,
        r.getLimit(), r.getKeysOnly());
    observer.ended(1, 0, 0, 0);
    return new RowsAnswer(rev, rows, r.getLimit() > 0 && rows.count() > r.getLimit());
  }

  /**
   * A txn with no put or delete anywhere (see {@link #isReadOnly}), served without raft: compares
   * and reads all see one fixed revision, the current one when it starts.
   *
   * @throws IllegalArgumentException if the txn writes
   */
  public TxnResponse txnReadOnly(KvStore store, TxnRequest r) {
    if (!isReadOnly(r)) {
      throw new IllegalArgumentException("txn with writes must go through raft");
    }
    validate(r);
    View view = new StoreView(store, store.currentRevision());
    try {
      Plan plan = plan(view, r);
      checkRanges(view, plan);
      return execute(view, plan).setHeader(header(view.rev())).build();
    } finally {
      view.ended(observer);
    }
  }

  /**
   * Whether a txn has no put and no delete in any branch, nested txns included. Such a txn can
   * be served by {@link #txnReadOnly}. (etcd v3.5's isTxnReadonly also sends every txn holding a
   * nested txn through raft; answering a read-only nested txn locally gives the same result.)
   */
  public static boolean isReadOnly(TxnRequest r) {
    return readOnly(r.getSuccessList()) && readOnly(r.getFailureList());
  }

  private static boolean readOnly(List<RequestOp> ops) {
    for (RequestOp op : ops) {
      switch (op.getRequestCase()) {
        case REQUEST_RANGE:
          break;
        case REQUEST_TXN:
          if (!isReadOnly(op.getRequestTxn())) {
            return false;
          }
          break;
        default:
          return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes (applier thread only)

  /**
   * Applies one KV request of a committed raft entry: a {@link PutRequest},
   * {@link DeleteRangeRequest} or {@link TxnRequest}.
   *
   * @throws EtcdException before anything is written
   * @throws IllegalArgumentException for any other request type
   */
  public ApplyResult<? extends Message> apply(KvStore store, long raftIndex, Message request) {
    if (request instanceof PutRequest p) {
      return put(store, raftIndex, p);
    } else if (request instanceof DeleteRangeRequest d) {
      return deleteRange(store, raftIndex, d);
    } else if (request instanceof TxnRequest t) {
      return txn(store, raftIndex, t);
    }
    throw new IllegalArgumentException("not a KV write request: " + request.getClass().getName());
  }

  public ApplyResult<PutResponse> put(KvStore store, long raftIndex, PutRequest r) {
    return inWriteTxn(store, raftIndex, w -> {
      validate(r);
      // etcd looks the lease up before it opens the write txn, so this error comes first.
      if (r.getLease() != 0 && !leases.exists(r.getLease())) {
        throw EtcdError.LEASE_NOT_FOUND.exception();
      }
      return doPut(w, r);
    });
  }

  public ApplyResult<DeleteRangeResponse> deleteRange(KvStore store, long raftIndex,
      DeleteRangeRequest r) {
    return inWriteTxn(store, raftIndex, w -> {
      validate(r);
      return doDelete(w, r);
    });
  }

  /**
   * Applies a txn as one write transaction. As etcd does, it first evaluates the compares of the
   * txn and of every nested txn on the taken path against the state before the txn, then checks
   * every op on that path (ignore_value/ignore_lease need an existing key, leases must exist,
   * range revisions must be servable), and only then writes.
   */
  public ApplyResult<TxnResponse> txn(KvStore store, long raftIndex, TxnRequest r) {
    return inWriteTxn(store, raftIndex, w -> {
      validate(r);
      Plan plan = plan(w, r);
      if (!isReadOnly(r)) {
        checkPuts(w, plan);
        checkIgnoredPutsFindTheirKey(plan, new ArrayList<>());
      }
      checkRanges(w, plan);
      TxnResponse.Builder resp = execute(w, plan);
      return resp.setHeader(header(w.rev())).build();
    });
  }

  /**
   * Compacts the store at {@code r.revision}. The response's header carries the current revision;
   * {@link CompactResult#durable()} completes once the compaction is on disk (for physical=true).
   * Committed entries must have been committed with {@link KvStore#commitBatch()} first.
   *
   * @throws EtcdException COMPACTED or FUTURE_REV, as the store decides
   */
  public CompactResult compact(KvStore store, CompactionRequest r) {
    CompletionStage<Void> durable = store.compact(r.getRevision());
    observer.ended(1, 0, 0, 0); // etcd 3.4's applier ranges once for the compaction's header revision
    CompactionResponse resp =
        CompactionResponse.newBuilder().setHeader(header(store.currentRevision())).build();
    return new CompactResult(resp, durable);
  }

  private <R extends Message> ApplyResult<R> inWriteTxn(KvStore store, long raftIndex,
      Function<WriteView, R> body) {
    KvStore.WriteTxn txn = store.beginTxn(raftIndex);
    WriteView w = new WriteView(store, txn);
    R resp;
    try {
      resp = body.apply(w);
    } catch (RuntimeException e) {
      w.ended(observer); // etcd's End counts a failed txn's calls too
      List<Event> events = txn.end();
      if (!events.isEmpty()) {
        // Every check runs before the first write; reaching this is a bug, and members would
        // diverge if we went on (etcd panics here too).
        IllegalStateException bug =
            new IllegalStateException("KV apply failed after writing at index " + raftIndex, e);
        throw bug;
      }
      throw e;
    }
    w.ended(observer);
    return new ApplyResult<>(resp, txn.end());
  }

  private static PutResponse doPut(WriteView w, PutRequest r) {
    ByteString value = r.getValue();
    long lease = r.getLease();
    if (r.getPrevKv() && !r.getIgnoreValue() && !r.getIgnoreLease()) {
      w.ranges++; // etcd reads the previous pair with one range; the store's put returns it here
    }
    if (r.getIgnoreValue() || r.getIgnoreLease()) {
      List<KeyValue> existing = w.range(r.getKey(), ByteString.EMPTY, 0, 0, false).kvs();
      if (existing.isEmpty()) {
        throw EtcdError.KEY_NOT_FOUND.exception();
      }
      if (r.getIgnoreValue()) {
        value = existing.get(0).getValue();
      }
      if (r.getIgnoreLease()) {
        lease = existing.get(0).getLease();
      }
    }
    KeyValue prev = w.put(r.getKey(), value, lease, r.getPrevKv());
    PutResponse.Builder resp = PutResponse.newBuilder().setHeader(header(w.rev()));
    if (r.getPrevKv() && prev != null) {
      resp.setPrevKv(prev);
    }
    return resp.build();
  }

  private static DeleteRangeResponse doDelete(WriteView w, DeleteRangeRequest r) {
    List<KeyValue> deleted = w.delete(r.getKey(), r.getRangeEnd());
    if (r.getPrevKv()) {
      w.ranges++; // etcd reads the deleted pairs with one range first
    }
    DeleteRangeResponse.Builder resp = DeleteRangeResponse.newBuilder()
        .setHeader(header(w.rev()))
        .setDeleted(deleted.size());
    if (r.getPrevKv()) {
      resp.addAllPrevKvs(deleted);
    }
    return resp.build();
  }

  // ---------------------------------------------------------------------------------------------
  // Range (shared by the read path and the ranges inside txns)

  private static RangeResponse range(View view, RangeRequest r) {
    boolean filtered = r.getMinModRevision() != 0 || r.getMaxModRevision() != 0
        || r.getMinCreateRevision() != 0 || r.getMaxCreateRevision() != 0;
    long limit = r.getLimit();
    // etcd keys off the requested sort order here, not the effective one: with order NONE and a
    // non-KEY target it fetches limit+1 keys in key order and sorts only those.
    if (r.getSortOrderValue() != RangeRequest.SortOrder.NONE_VALUE || filtered) {
      limit = 0; // fetch everything, sort and truncate afterwards
    } else if (limit > 0) {
      limit = limit + 1; // one extra tells whether there is more
    }
    RangeResult rr = view.range(r.getKey(), r.getRangeEnd(), r.getRevision(), limit,
        r.getCountOnly());

    List<KeyValue> kvs = new ArrayList<>(rr.kvs());
    if (r.getMaxModRevision() != 0) {
      kvs.removeIf(kv -> kv.getModRevision() > r.getMaxModRevision());
    }
    if (r.getMinModRevision() != 0) {
      kvs.removeIf(kv -> kv.getModRevision() < r.getMinModRevision());
    }
    if (r.getMaxCreateRevision() != 0) {
      kvs.removeIf(kv -> kv.getCreateRevision() > r.getMaxCreateRevision());
    }
    if (r.getMinCreateRevision() != 0) {
      kvs.removeIf(kv -> kv.getCreateRevision() < r.getMinCreateRevision());
    }

    int order = r.getSortOrderValue();
    if (r.getSortTarget() != RangeRequest.SortTarget.KEY
        && order == RangeRequest.SortOrder.NONE_VALUE) {
      // The store returns keys in ascending key order; any other target sorts ascending by default.
      order = RangeRequest.SortOrder.ASCEND_VALUE;
    }
    Comparator<KeyValue> by = sortBy(r.getSortTarget());
    if (by != null) {
      // A stable sort: ties stay in ascending key order in both directions, as Go's insertion
      // sort leaves them for small results.
      if (order == RangeRequest.SortOrder.ASCEND_VALUE) {
        kvs.sort(by);
      } else if (order == RangeRequest.SortOrder.DESCEND_VALUE) {
        kvs.sort(by.reversed());
      }
    }

    RangeResponse.Builder resp = RangeResponse.newBuilder();
    if (r.getLimit() > 0 && kvs.size() > r.getLimit()) {
      kvs = kvs.subList(0, (int) r.getLimit());
      resp.setMore(true);
    }
    for (KeyValue kv : kvs) {
      resp.addKvs(r.getKeysOnly() ? kv.toBuilder().clearValue().build() : kv);
    }
    return resp.setHeader(header(view.rev())).setCount(rr.count()).build();
  }

  private static Comparator<KeyValue> sortBy(RangeRequest.SortTarget target) {
    switch (target) {
      case KEY:
        return Comparator.comparing(KeyValue::getKey, BYTES);
      case VERSION:
        return Comparator.comparingLong(KeyValue::getVersion);
      case CREATE:
        return Comparator.comparingLong(KeyValue::getCreateRevision);
      case MOD:
        return Comparator.comparingLong(KeyValue::getModRevision);
      case VALUE:
        return Comparator.comparing(KeyValue::getValue, BYTES);
      default:
        return null;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Txn: compares, checks, execution

  /**
   * The path a txn takes: whether its compares held, the ops of the taken branch and, for each op
   * that is a nested txn, its own plan (null for other ops). Computed before any write, so the
   * compares of nested txns see the state before the outer txn, as in etcd's compareToPath.
   */
  private record Plan(boolean succeeded, List<RequestOp> ops, List<Plan> nested) {}

  private static Plan plan(View view, TxnRequest t) {
    boolean succeeded = true;
    for (Compare c : t.getCompareList()) {
      if (!compare(view, c)) {
        succeeded = false;
        break;
      }
    }
    List<RequestOp> ops = succeeded ? t.getSuccessList() : t.getFailureList();
    List<Plan> nested = new ArrayList<>(ops.size());
    for (RequestOp op : ops) {
      nested.add(op.hasRequestTxn() ? plan(view, op.getRequestTxn()) : null);
    }
    return new Plan(succeeded, ops, nested);
  }

  /**
   * A compare over a range holds only if every key in range satisfies it. With no key in range
   * it is evaluated against an empty kv (version, revisions and lease 0), except that a VALUE
   * compare on missing keys always fails: an empty value cannot be told from a missing one.
   */
  static boolean compare(View view, Compare c) {
    List<KeyValue> kvs;
    try {
      kvs = view.range(c.getKey(), c.getRangeEnd(), 0, 0, false).kvs();
    } catch (EtcdException e) {
      return false;
    }
    if (kvs.isEmpty()) {
      return c.getTarget() != Compare.CompareTarget.VALUE
          && compare(c, KeyValue.getDefaultInstance());
    }
    for (KeyValue kv : kvs) {
      if (!compare(c, kv)) {
        return false;
      }
    }
    return true;
  }

  private static boolean compare(Compare c, KeyValue kv) {
    // Like etcd, a target_union of another kind than target compares against 0 / empty.
    Compare.TargetUnionCase set = c.getTargetUnionCase();
    int result;
    switch (c.getTarget()) {
      case VALUE:
        ByteString v = set == Compare.TargetUnionCase.VALUE ? c.getValue() : ByteString.EMPTY;
        result = BYTES.compare(kv.getValue(), v);
        break;
      case CREATE:
        result = Long.compare(kv.getCreateRevision(),
            set == Compare.TargetUnionCase.CREATE_REVISION ? c.getCreateRevision() : 0);
        break;
      case MOD:
        result = Long.compare(kv.getModRevision(),
            set == Compare.TargetUnionCase.MOD_REVISION ? c.getModRevision() : 0);
        break;
      case VERSION:
        result = Long.compare(kv.getVersion(),
            set == Compare.TargetUnionCase.VERSION ? c.getVersion() : 0);
        break;
      case LEASE:
        result = Long.compare(kv.getLease(), set == Compare.TargetUnionCase.LEASE ? c.getLease() : 0);
        break;
      default:
        result = 0;
    }
    switch (c.getResult()) {
      case EQUAL:
        return result == 0;
      case NOT_EQUAL:
        return result != 0;
      case GREATER:
        return result > 0;
      case LESS:
        return result < 0;
      default:
        return true;
    }
  }

  /** etcd's checkRequestPut over the taken path, against the state before the txn. */
  private void checkPuts(View view, Plan plan) {
    for (int i = 0; i < plan.ops().size(); i++) {
      RequestOp op = plan.ops().get(i);
      if (plan.nested().get(i) != null) {
        checkPuts(view, plan.nested().get(i));
      } else if (op.hasRequestPut()) {
        PutRequest p = op.getRequestPut();
        if ((p.getIgnoreValue() || p.getIgnoreLease())
            && view.range(p.getKey(), ByteString.EMPTY, 0, 1, true).count() == 0) {
          throw EtcdError.KEY_NOT_FOUND.exception();
        }
        if (p.getLease() != 0 && !leases.exists(p.getLease())) {
          throw EtcdError.LEASE_NOT_FOUND.exception();
        }
      }
    }
  }

  /**
   * Beyond etcd: a put with ignore_value/ignore_lease whose key existed before the txn but is
   * deleted by an earlier op of the same txn would fail half-way (etcd v3.5 panics there). The
   * API's duplicate-key check normally prevents this; reject it here too, before any write.
   * {@code effects} collects the earlier writes in execution order.
   */
  private static void checkIgnoredPutsFindTheirKey(Plan plan, List<RequestOp> effects) {
    for (int i = 0; i < plan.ops().size(); i++) {
      RequestOp op = plan.ops().get(i);
      if (plan.nested().get(i) != null) {
        checkIgnoredPutsFindTheirKey(plan.nested().get(i), effects);
        continue;
      }
      if (op.hasRequestPut()) {
        PutRequest p = op.getRequestPut();
        if ((p.getIgnoreValue() || p.getIgnoreLease()) && deletedByEarlierOp(p.getKey(), effects)) {
          throw EtcdError.KEY_NOT_FOUND.exception();
        }
      }
      if (op.hasRequestPut() || op.hasRequestDeleteRange()) {
        effects.add(op);
      }
    }
  }

  private static boolean deletedByEarlierOp(ByteString key, List<RequestOp> effects) {
    for (int i = effects.size() - 1; i >= 0; i--) {
      RequestOp op = effects.get(i);
      if (op.hasRequestPut() && op.getRequestPut().getKey().equals(key)) {
        return false;
      }
      if (op.hasRequestDeleteRange()) {
        DeleteRangeRequest d = op.getRequestDeleteRange();
        if (inRange(key, d.getKey(), d.getRangeEnd())) {
          return true;
        }
      }
    }
    return false;
  }

  static boolean inRange(ByteString k, ByteString key, ByteString rangeEnd) {
    if (rangeEnd.isEmpty()) {
      return k.equals(key);
    }
    if (rangeEnd.equals(GTE)) {
      return BYTES.compare(k, key) >= 0;
    }
    return BYTES.compare(k, key) >= 0 && BYTES.compare(k, rangeEnd) < 0;
  }

  /** etcd's checkRequestRange over the taken path: a range's revision must be servable. */
  private static void checkRanges(View view, Plan plan) {
    for (int i = 0; i < plan.ops().size(); i++) {
      RequestOp op = plan.ops().get(i);
      if (plan.nested().get(i) != null) {
        checkRanges(view, plan.nested().get(i));
      } else if (op.hasRequestRange()) {
        long rev = op.getRequestRange().getRevision();
        if (rev == 0) {
          continue;
        }
        if (rev > view.rev()) {
          throw EtcdError.FUTURE_REV.exception();
        }
        if (rev < view.compactRevision()) {
          throw EtcdError.COMPACTED.exception();
        }
      }
    }
  }

  /**
   * Runs the ops of the taken path in order; reads see the writes before them. Nested txn
   * responses get an empty header, as in etcd (only the outermost header carries the revision);
   * puts, deletes and ranges inside carry the revision as it stood when they ran.
   */
  private static TxnResponse.Builder execute(View view, Plan plan) {
    TxnResponse.Builder resp = TxnResponse.newBuilder().setSucceeded(plan.succeeded());
    for (int i = 0; i < plan.ops().size(); i++) {
      RequestOp op = plan.ops().get(i);
      ResponseOp.Builder r = ResponseOp.newBuilder();
      switch (op.getRequestCase()) {
        case REQUEST_RANGE:
          r.setResponseRange(range(view, op.getRequestRange()));
          break;
        case REQUEST_PUT:
          r.setResponsePut(doPut(view.writer(), op.getRequestPut()));
          break;
        case REQUEST_DELETE_RANGE:
          r.setResponseDeleteRange(doDelete(view.writer(), op.getRequestDeleteRange()));
          break;
        case REQUEST_TXN:
          r.setResponseTxn(execute(view, plan.nested().get(i))
              .setHeader(ResponseHeader.getDefaultInstance()));
          break;
        default:
          break; // rejected by validate(); etcd leaves an empty entry
      }
      resp.addResponses(r);
    }
    return resp;
  }

  // ---------------------------------------------------------------------------------------------
  // Request checks etcd's API does before a request reaches raft (api/v3rpc/key.go). The applier
  // repeats the API's own checks (KvRequestValidator): a request must never be half-applied. The
  // op count and duplicate-key checks need the server's limits and stay in the API.

  public static void validate(RangeRequest r) {
    KvRequestValidator.checkRange(r);
  }

  public static void validate(PutRequest r) {
    KvRequestValidator.checkPut(r);
  }

  public static void validate(DeleteRangeRequest r) {
    KvRequestValidator.checkDeleteRange(r);
  }

  public static void validate(TxnRequest r) {
    KvRequestValidator.checkTxnOps(r);
  }

  private static ResponseHeader header(long revision) {
    return ResponseHeader.newBuilder().setRevision(revision).build();
  }

  // ---------------------------------------------------------------------------------------------
  // Views: one read interface over a fixed store revision or over the open write txn

  private abstract static class View {
    /** What this request's transaction did so far, for {@link TxnObserver}; one thread's. */
    int ranges;
    int puts;
    int deletes;
    long putBytes;

    /** The revision reads see now: the header revision of a read at this point. */
    abstract long rev();

    abstract long compactRevision();

    /** Reads at {@code rev} ({@code <= 0}: {@link #rev()}), as etcd's rangeKeys checks it. */
    final RangeResult range(ByteString key, ByteString end, long rev, long limit, boolean countOnly) {
      ranges++;
      return read(key, end, rev, limit, countOnly);
    }

    abstract RangeResult read(ByteString key, ByteString end, long rev, long limit, boolean countOnly);

    /** Reports the transaction's calls, once, when it ends. */
    final void ended(TxnObserver observer) {
      observer.ended(ranges, puts, deletes, putBytes);
    }

    WriteView writer() {
      throw new IllegalStateException("write in a read-only txn");
    }
  }

  /** Reads at one fixed revision of the store, for Range and read-only txns. */
  private static final class StoreView extends View {
    private final KvStore store;
    private final long rev;

    StoreView(KvStore store, long rev) {
      this.store = store;
      this.rev = rev;
    }

    @Override
    long rev() {
      return rev;
    }

    @Override
    long compactRevision() {
      return store.compactRevision();
    }

    @Override
    RangeResult read(ByteString key, ByteString end, long at, long limit, boolean countOnly) {
      if (at > rev) {
        throw EtcdError.FUTURE_REV.exception();
      }
      return store.range(key, end, at > 0 ? at : rev, limit, countOnly);
    }
  }

  /**
   * The open write txn of one entry. Its revision is the store's before the txn until the first
   * write and the txn's own revision after, as etcd's storeTxnWrite reports it.
   */
  private static final class WriteView extends View {
    private final KvStore store;
    private final KvStore.WriteTxn txn;
    private boolean wrote;

    WriteView(KvStore store, KvStore.WriteTxn txn) {
      this.store = store;
      this.txn = txn;
    }

    @Override
    long rev() {
      return wrote ? txn.revision() : txn.revision() - 1;
    }

    @Override
    long compactRevision() {
      return store.compactRevision();
    }

    @Override
    RangeResult read(ByteString key, ByteString end, long at, long limit, boolean countOnly) {
      if (at <= 0 || at == rev()) {
        return txn.range(key, end, limit, countOnly);
      }
      if (at > rev()) {
        throw EtcdError.FUTURE_REV.exception();
      }
      if (at < compactRevision()) {
        throw EtcdError.COMPACTED.exception();
      }
      // An older revision: committed history. (The seam has no historical read inside a write
      // txn; a revision of the current, still uncommitted batch is not readable here.)
      return store.range(key, end, at, limit, countOnly);
    }

    @Override
    WriteView writer() {
      return this;
    }

    KeyValue put(ByteString key, ByteString value, long lease, boolean withPrev) {
      wrote = true;
      puts++;
      putBytes += key.size() + value.size();
      return txn.put(key, value, lease, withPrev);
    }

    List<KeyValue> delete(ByteString key, ByteString end) {
      deletes++;
      List<KeyValue> deleted = txn.deleteRange(key, end);
      if (!deleted.isEmpty()) {
        wrote = true;
      }
      return deleted;
    }
  }
}
