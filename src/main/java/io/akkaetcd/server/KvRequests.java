package io.akkaetcd.server;

import io.akkaetcd.apply.CompactResult;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;

/**
 * Applies a decoded raft request with the {@link KvApplier}: the response for a put, delete or txn;
 * for a compaction with physical=true, a stage that completes once the compaction is durable.
 * A request of a kind not served yet changes nothing and answers nothing.
 */
final class KvRequests implements MvccApplier.RequestApplier {
  private final KvApplier kv;

  KvRequests(KvApplier kv) {
    this.kv = kv;
  }

  @Override
  public Object apply(KvStore store, long index, InternalRaftRequest r) {
    return switch (r.getRequestCase()) {
      case PUT -> kv.put(store, index, r.getPut()).response();
      case DELETE_RANGE -> kv.deleteRange(store, index, r.getDeleteRange()).response();
      case TXN -> kv.txn(store, index, r.getTxn()).response();
      case COMPACTION -> {
        CompactResult c = kv.compact(store, r.getCompaction());
        store.setAppliedIndex(index);
        yield r.getCompaction().getPhysical() ? c.durable().thenApply(v -> c.response()) : c.response();
      }
      default -> {
        store.setAppliedIndex(index);
        yield null;
      }
    };
  }
}
