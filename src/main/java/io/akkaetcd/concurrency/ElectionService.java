package io.akkaetcd.concurrency;

import akka.NotUsed;
import akka.stream.Materializer;
import akka.stream.javadsl.Source;
import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import io.akkaetcd.proto.v3electionpb.CampaignRequest;
import io.akkaetcd.proto.v3electionpb.CampaignResponse;
import io.akkaetcd.proto.v3electionpb.Election;
import io.akkaetcd.proto.v3electionpb.LeaderKey;
import io.akkaetcd.proto.v3electionpb.LeaderRequest;
import io.akkaetcd.proto.v3electionpb.LeaderResponse;
import io.akkaetcd.proto.v3electionpb.ProclaimRequest;
import io.akkaetcd.proto.v3electionpb.ProclaimResponse;
import io.akkaetcd.proto.v3electionpb.ResignRequest;
import io.akkaetcd.proto.v3electionpb.ResignResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * etcd's v3electionpb.Election (etcdserver/api/v3election), as clientv3/concurrency's Election:
 * a candidate's key is {@code name/hex(lease)} holding its value; the leader is the key with the
 * lowest create revision under {@code name/}. A LeaderKey (name, key, create revision, lease)
 * stands for a won election: Proclaim and Resign act only while that key still has that create
 * revision. Errors are etcd's: {@code election: not leader}, {@code election: no leader} and the
 * missing {@code leader} field, all code Unknown. Thread-safe: every step is a call on the
 * {@link Store} of the caller, taken as the call enters, so it acts with the caller's identity.
 */
public final class ElectionService implements Election {
  /** Marks the leader key's deletion inside an observed stream; never sent. */
  private static final LeaderResponse DELETED = LeaderResponse.newBuilder().build();

  private final Supplier<Store> callerStore;
  private final Materializer mat;

  /** @param callerStore the store acting as the call being entered; asked on the entering thread */
  public ElectionService(Supplier<Store> callerStore, Materializer mat) {
    this.callerStore = callerStore;
    this.mat = mat;
  }

  /** A Campaign whose caller is never seen to go away (an in-process call). */
  @Override
  public CompletionStage<CampaignResponse> campaign(CampaignRequest in) {
    return campaign(in, new CompletableFuture<Void>());
  }

  /**
   * Completes once the caller leads: its key is the oldest under the name. If {@code canceled}
   * completes while it waits, the caller's key is deleted (etcd's Campaign resigns on a canceled
   * context); any other failed wait leaves the key, as etcd's does.
   */
  public CompletionStage<CampaignResponse> campaign(CampaignRequest in, CompletionStage<Void> canceled) {
    return tryCampaign(in).thenCompose(attempt -> attempt.answer(canceled));
  }

  /**
   * Campaign up to its one txn, which puts the caller's key if new and reads the oldest key in the
   * same apply: {@link Attempt.Done} when the caller leads already with its value (no wait, no
   * watch: etcd's waitDeletes would find no older key at that revision), else the rest of the
   * campaign (proclaiming a new value, then the wait for the older keys' deletion). A caller that
   * wins but leaves during the txn keeps its key, where etcd's waitDeletes would see the canceled
   * context and resign: the gRPC transport does not learn of a reset before a unary answer.
   */
  public CompletionStage<Attempt<CampaignResponse>> tryCampaign(CampaignRequest in) {
    Store store = callerStore.get();
    ByteString prefix = Keys.prefix(in.getName());
    return ClientErrors.asClient(Sessions.lease(store, in.getLease()).thenCompose(lease -> {
      ByteString key = Keys.contender(prefix, lease);
      return store.txn(Keys.enter(prefix, key, in.getValue(), lease)).thenApply(t -> {
        KeyValue mine = t.getSucceeded() ? null : t.getResponses(0).getResponseRange().getKvs(0);
        LeaderKey leader = LeaderKey.newBuilder().setName(in.getName()).setKey(key).setLease(lease)
            .setRev(mine == null ? t.getHeader().getRevision() : mine.getCreateRevision())
            .build();
        CampaignResponse won = CampaignResponse.newBuilder().setHeader(t.getHeader()).setLeader(leader).build();
        boolean sameValue = mine == null || mine.getValue().equals(in.getValue());
        var oldest = t.getResponses(1).getResponseRange().getKvsList();
        if (sameValue && (oldest.isEmpty() || oldest.get(0).getCreateRevision() == leader.getRev())) {
          return Attempt.done(won);
        }
        return Attempt.waiting(canceled -> ClientErrors.asClient(awaitTurn(store, prefix, leader, sameValue, in.getValue(), canceled)
            .thenApply(h -> won)));
      });
    }));
  }

  /**
   * The contended rest of a campaign: proclaim {@code value} unless the key has it (a failed
   * proclaim resigns, as etcd), then wait for the deletion of every older key; a canceled wait
   * resigns.
   */
  private CompletionStage<ResponseHeader> awaitTurn(Store store, ByteString prefix, LeaderKey leader, boolean sameValue,
      ByteString value, CompletionStage<Void> canceled) {
    CompletionStage<Void> proclaimed = CompletableFuture.completedFuture(null);
    if (!sameValue) {
      proclaimed = proclaim(store, leader, value).thenApply(h -> (Void) null)
          .exceptionallyCompose(e -> resign(store, leader).handle((h, x) -> null)
              .thenCompose(v -> CompletableFuture.failedFuture(e)));
    }
    return proclaimed.thenCompose(v -> WaitDeletes.waitDeletes(store, mat, prefix, leader.getRev() - 1, canceled))
        .exceptionallyCompose(e -> EtcdFailures.cause(e) != WaitDeletes.CANCELED ? CompletableFuture.failedFuture(e)
            : resign(store, leader).handle((h, x) -> null).thenCompose(n -> CompletableFuture.failedFuture(e)));
  }

  @Override
  public CompletionStage<ProclaimResponse> proclaim(ProclaimRequest in) {
    if (!in.hasLeader()) {
      return CompletableFuture.failedFuture(EtcdError.ELECTION_MISSING_LEADER.exception());
    }
    return ClientErrors.asClient(proclaim(callerStore.get(), in.getLeader(), in.getValue())
        .thenApply(h -> ProclaimResponse.newBuilder().setHeader(h).build()));
  }

  @Override
  public CompletionStage<LeaderResponse> leader(LeaderRequest in) {
    return ClientErrors.asClient(callerStore.get().range(Keys.firstCreated(Keys.prefix(in.getName()))).thenApply(r -> {
      if (r.getKvsCount() == 0) {
        throw EtcdError.ELECTION_NO_LEADER.exception();
      }
      return LeaderResponse.newBuilder().setHeader(r.getHeader()).setKv(r.getKvs(0)).build();
    }));
  }

  /**
   * The current leader (waiting for one if there is none), then each value it proclaims, and when
   * its key goes, the next leader: etcd's Election.observe. Ends without error if a read fails.
   */
  @Override
  public Source<LeaderResponse, NotUsed> observe(LeaderRequest in) {
    Store store = callerStore.get();
    ByteString prefix = Keys.prefix(in.getName());
    return Source.repeat(NotUsed.getInstance())
        .flatMapConcat(n -> Source.completionStageSource(currentOrNext(store, prefix)
            .thenApply(first -> Source.single(first).concat(proclaimsUntilDeleted(store, first)))))
        .recoverWithRetries(0, Throwable.class, Source::empty);
  }

  @Override
  public CompletionStage<ResignResponse> resign(ResignRequest in) {
    if (!in.hasLeader()) {
      return CompletableFuture.failedFuture(EtcdError.ELECTION_MISSING_LEADER.exception());
    }
    return ClientErrors.asClient(resign(callerStore.get(), in.getLeader()).thenApply(h -> ResignResponse.newBuilder().setHeader(h).build()));
  }

  private static CompletionStage<ResponseHeader> proclaim(Store store, LeaderKey leader, ByteString value) {
    TxnRequest put = TxnRequest.newBuilder()
        .addCompare(createRevisionIs(leader.getKey(), leader.getRev()))
        .addSuccess(RequestOp.newBuilder().setRequestPut(
            PutRequest.newBuilder().setKey(leader.getKey()).setValue(value).setIgnoreLease(true)))
        .build();
    return store.txn(put).thenApply(t -> {
      if (!t.getSucceeded()) {
        throw EtcdError.ELECTION_NOT_LEADER.exception();
      }
      return t.getHeader();
    });
  }

  /** Deletes the leader's key if it is still that incarnation; succeeds either way (as etcd). */
  private static CompletionStage<ResponseHeader> resign(Store store, LeaderKey leader) {
    TxnRequest delete = TxnRequest.newBuilder()
        .addCompare(createRevisionIs(leader.getKey(), leader.getRev()))
        .addSuccess(RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder().setKey(leader.getKey())))
        .build();
    return store.txn(delete).thenApply(t -> t.getHeader());
  }

  /** The oldest key under {@code prefix}, or, if none, the first one put after the read. */
  private CompletionStage<LeaderResponse> currentOrNext(Store store, ByteString prefix) {
    return store.range(Keys.firstCreated(prefix)).thenCompose(r -> {
      if (r.getKvsCount() > 0) {
        return CompletableFuture.completedFuture(
            LeaderResponse.newBuilder().setHeader(r.getHeader()).setKv(r.getKvs(0)).build());
      }
      WatchCreateRequest next = WatchCreateRequest.newBuilder().setKey(prefix).setRangeEnd(Keys.rangeEnd(prefix))
          .setStartRevision(r.getHeader().getRevision()).build();
      return store.watch(next)
          .map(WaitDeletes::failIfCanceled)
          .mapConcat(w -> w.getEventsList().stream().filter(e -> e.getType() == Event.EventType.PUT).limit(1)
              .map(e -> LeaderResponse.newBuilder()
                  .setHeader(w.getHeader().toBuilder().setRevision(e.getKv().getModRevision()))
                  .setKv(e.getKv()).build())
              .toList())
          .runWith(akka.stream.javadsl.Sink.head(), mat);
    });
  }

  /** Each later put of the leader's key, until the key is deleted. */
  private static Source<LeaderResponse, NotUsed> proclaimsUntilDeleted(Store store, LeaderResponse first) {
    KeyValue kv = first.getKv();
    return store.watch(WatchCreateRequest.newBuilder().setKey(kv.getKey())
            .setStartRevision(first.getHeader().getRevision() + 1).build())
        .map(WaitDeletes::failIfCanceled)
        .mapConcat(w -> {
          List<LeaderResponse> out = new ArrayList<>();
          for (Event e : w.getEventsList()) {
            if (e.getType() == Event.EventType.DELETE) {
              out.add(DELETED);
              break;
            }
            out.add(LeaderResponse.newBuilder().setHeader(w.getHeader()).setKv(e.getKv()).build());
          }
          return out;
        })
        .takeWhile(r -> r != DELETED);
  }

  private static Compare createRevisionIs(ByteString key, long revision) {
    return Compare.newBuilder().setKey(key).setTarget(Compare.CompareTarget.CREATE)
        .setResult(Compare.CompareResult.EQUAL).setCreateRevision(revision).build();
  }
}
