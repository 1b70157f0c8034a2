package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.CurrentCall;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.api.pipeline.Pipeline;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.concurrency.Store;
import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The recipes' {@link Store} on a member: each call goes through the member's {@link Pipeline}
 * as an in-process call of the KV, Lease or Watch method it is, to the same service instances
 * the gRPC transport calls, as etcd's v3lock and v3election call the member through its own
 * client. Each call acts as one user (null: anonymous), so auth checks the recipes' keys against
 * their caller's permissions as etcd's do. Failures are the bare etcd errors.
 */
final class PipelineStore implements Store {
  private final Pipeline pipeline;
  private final KvService kv;
  private final LeaseService lease;
  private final WatchService watch;
  private final String user;

  PipelineStore(Pipeline pipeline, KvService kv, LeaseService lease, WatchService watch) {
    this(pipeline, kv, lease, watch, null);
  }

  private PipelineStore(Pipeline pipeline, KvService kv, LeaseService lease, WatchService watch, String user) {
    this.pipeline = pipeline;
    this.kv = kv;
    this.lease = lease;
    this.watch = watch;
    this.user = user;
  }

  /** This store acting as the user of {@code who} (null: anonymous). */
  PipelineStore actingAs(AuthInfo who) {
    String name = who == null ? null : who.username();
    return java.util.Objects.equals(name, user) ? this : new PipelineStore(pipeline, kv, lease, watch, name);
  }

  /** The store acting as the call being entered (etcd's v3lock/v3election pass on the caller's context). */
  Store forCurrentCall() {
    return actingAs(CurrentCall.authInfo());
  }

  @Override
  public CompletionStage<TxnResponse> txn(TxnRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.TXN, user), request, kv::txn));
  }

  @Override
  public CompletionStage<RangeResponse> range(RangeRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.RANGE, user), request, kv::range));
  }

  @Override
  public CompletionStage<DeleteRangeResponse> delete(DeleteRangeRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.DELETE_RANGE, user), request, kv::deleteRange));
  }

  @Override
  public CompletionStage<LeaseGrantResponse> grant(LeaseGrantRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.LEASE_GRANT, user), request, lease::leaseGrant));
  }

  @Override
  public Source<WatchResponse, NotUsed> watch(WatchCreateRequest request) {
    return SingleWatch.of(request, in -> pipeline.stream(Call.inProcess(Methods.WATCH, user), in, watch::watch))
        .mapError(Throwable.class, EtcdFailures::cause);
  }

  private static <R> CompletionStage<R> unwrapped(CompletionStage<R> result) {
    return result.handle((r, e) -> e == null ? CompletableFuture.completedFuture(r)
        : CompletableFuture.<R>failedFuture(EtcdFailures.cause(e))).thenCompose(f -> f);
  }
}
