package io.akkaetcd.api;

import io.akkaetcd.alarm.Quota;
import io.akkaetcd.api.pipeline.CurrentCall;
import io.akkaetcd.apply.KvRequestValidator;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.KV;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * etcd's KV service. Checks requests as etcd's gRPC layer does, sends writes through Raft, and
 * serves reads from the MVCC store on the read executor: linearizable reads after a read-index
 * barrier, serializable ones at once. Never touches state itself. Transport-neutral: fails with
 * {@link io.akkaetcd.errors.EtcdException}; each transport maps that (gRPC in {@link GrpcServiceHandler}).
 */
public final class KvService implements KV {
  private final EtcdMember member;
  private final KvApplier applier;
  private final QuotaGate quota;

  public KvService(EtcdMember member, KvApplier applier) {
    this.member = member;
    this.applier = applier;
    this.quota = new QuotaGate(member);
  }

  @Override
  public CompletionStage<RangeResponse> range(RangeRequest in) {
    return ranged(in, () -> {
      RangeResponse r = applier.range(member.store(), in);
      return r.toBuilder().setHeader(member.header(r.getHeader().getRevision())).build();
    });
  }

  /**
   * Range for the gRPC transport: the same answer as {@link #range}, encoded from the stored rows
   * when it can be ({@link KvApplier#answersWithRows}) and streamed when large, never held whole.
   */
  CompletionStage<EncodedMessage> rangeEncoded(RangeRequest in) {
    if (!KvApplier.answersWithRows(in)) {
      return range(in).thenApply(r -> EncodedMessage.whole(akka.util.ByteString.fromArrayUnsafe(r.toByteArray())));
    }
    return ranged(in, () -> {
      KvApplier.RowsAnswer a = applier.rangeRows(member.store(), in);
      return EncodedRange.encode(member.header(a.revision()), a);
    });
  }

  private <T> CompletionStage<T> ranged(RangeRequest in, Supplier<T> answer) {
    return EtcdFailures.guarded(() -> {
      KvRequestValidator.checkRange(in);
      if (!in.getSerializable() && member.isLearner()) {
        throw EtcdError.NOT_SUPPORTED_FOR_LEARNER.exception(); // a learner serves serializable reads only
      }
      return read(in.getSerializable(), answer);
    });
  }

  @Override
  public CompletionStage<PutResponse> put(PutRequest in) {
    AuthInfo who = CurrentCall.authInfo();
    return EtcdFailures.guarded(() -> {
      KvRequestValidator.checkPut(in);
      return quota.admit(Quota.cost(in))
          .thenCompose(v -> member.propose(Callers.by(who, InternalRaftRequest.newBuilder().setPut(in))))
          .thenApply(r -> withHeader((PutResponse) r));
    });
  }

  @Override
  public CompletionStage<DeleteRangeResponse> deleteRange(DeleteRangeRequest in) {
    AuthInfo who = CurrentCall.authInfo();
    return EtcdFailures.guarded(() -> {
      KvRequestValidator.checkDeleteRange(in);
      return member.propose(Callers.by(who, InternalRaftRequest.newBuilder().setDeleteRange(in)))
          .thenApply(r -> withHeader((DeleteRangeResponse) r));
    });
  }

  @Override
  public CompletionStage<TxnResponse> txn(TxnRequest in) {
    AuthInfo who = CurrentCall.authInfo();
    return EtcdFailures.guarded(() -> {
      KvRequestValidator.checkTxn(in, member.maxTxnOps());
      if (KvApplier.isReadOnly(in)) {
        // etcd serves a txn without writes as a (linearizable) read, not through Raft.
        return read(false, () -> withHeader(applier.txnReadOnly(member.store(), in)));
      }
      return quota.admit(Quota.cost(in))
          .thenCompose(v -> member.propose(Callers.by(who, InternalRaftRequest.newBuilder().setTxn(in))))
          .thenApply(r -> withHeader((TxnResponse) r));
    });
  }

  @Override
  public CompletionStage<CompactionResponse> compact(CompactionRequest in) {
    AuthInfo who = CurrentCall.authInfo();
    return EtcdFailures.guarded(() -> {
      KvRequestValidator.checkCompaction(in);
      return member.propose(Callers.by(who, InternalRaftRequest.newBuilder().setCompaction(in)))
          .thenApply(r -> withHeader((CompactionResponse) r));
    });
  }

  private <T> CompletionStage<T> read(boolean serializable, Supplier<T> read) {
    if (serializable) {
      return CompletableFuture.supplyAsync(read, member.readExecutor());
    }
    return member.linearizableBarrier().thenApplyAsync(v -> read.get(), member.readExecutor());
  }

  private PutResponse withHeader(PutResponse r) {
    return r.toBuilder().setHeader(member.header(r.getHeader().getRevision())).build();
  }

  private DeleteRangeResponse withHeader(DeleteRangeResponse r) {
    return r.toBuilder().setHeader(member.header(r.getHeader().getRevision())).build();
  }

  private TxnResponse withHeader(TxnResponse r) {
    return r.toBuilder().setHeader(member.header(r.getHeader().getRevision())).build();
  }

  private CompactionResponse withHeader(CompactionResponse r) {
    return r.toBuilder().setHeader(member.header(r.getHeader().getRevision())).build();
  }
}
