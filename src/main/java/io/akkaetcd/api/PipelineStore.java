package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.CurrentCall;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.api.pipeline.Pipeline;
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
import java.util.function.Function;

/**
 * The recipes' {@link Store} on a member: each call goes through the member's {@link Pipeline}
 * as an in-process call of the KV, Lease or Watch method it is, to the same service instances
 * the gRPC transport calls, as etcd's v3lock and v3election call the member through its own
 * client. Each call acts as one user (null: anonymous), so auth checks the recipes' keys against
 * their caller's permissions as etcd's do. Failures are the bare etcd errors.
 *
 * <p>Uncontended, a Lock is then one pass of the pipeline for its gRPC call and one stage check of
 * its txn; Unlock one pass and one check of its DeleteRange.
 */
final class PipelineStore implements Store {
  private final Pipeline pipeline;
  private final KvService kv;
  private final LeaseService lease;
  private final WatchService watch;
  /** The call this store serves, already through the pipeline; null: calls of their own. */
  private final Call outer;

  PipelineStore(Pipeline pipeline, KvService kv, LeaseService lease, WatchService watch) {
    this(pipeline, kv, lease, watch, null);
  }

  private PipelineStore(Pipeline pipeline, KvService kv, LeaseService lease, WatchService watch, Call outer) {
    this.pipeline = pipeline;
    this.kv = kv;
    this.lease = lease;
    this.watch = watch;
    this.outer = outer;
  }

  /**
   * The store acting as the call being entered (etcd's v3lock/v3election pass on the caller's
   * context): its unary calls are nested in that call ({@link Pipeline#nested}), one pass of the
   * pipeline for the caller's request; outside a call, each is an anonymous call of its own.
   */
  Store forCurrentCall() {
    Call call = CurrentCall.call();
    return call == null ? this : new PipelineStore(pipeline, kv, lease, watch, call);
  }

  @Override
  public CompletionStage<TxnResponse> txn(TxnRequest request) {
    return unary(Methods.TXN, request, kv::txn);
  }

  @Override
  public CompletionStage<RangeResponse> range(RangeRequest request) {
    return unary(Methods.RANGE, request, kv::range);
  }

  @Override
  public CompletionStage<DeleteRangeResponse> delete(DeleteRangeRequest request) {
    return unary(Methods.DELETE_RANGE, request, kv::deleteRange);
  }

  @Override
  public CompletionStage<LeaseGrantResponse> grant(LeaseGrantRequest request) {
    return unary(Methods.LEASE_GRANT, request, lease::leaseGrant);
  }

  @Override
  public Source<WatchResponse, NotUsed> watch(WatchCreateRequest request) {
    Call call = Call.inProcess(Methods.WATCH, outer == null ? null : outer.user());
    return SingleWatch.of(request, in -> pipeline.stream(call, in, watch::watch))
        .mapError(Throwable.class, EtcdFailures::cause);
  }

  private <Q, R> CompletionStage<R> unary(String method, Q request, Function<Q, CompletionStage<R>> service) {
    CompletionStage<R> result = outer == null ? pipeline.unary(Call.inProcess(method), request, service)
        : pipeline.nested(outer, method, request, service);
    return result.handle((r, e) -> e == null ? CompletableFuture.completedFuture(r)
        : CompletableFuture.<R>failedFuture(EtcdFailures.cause(e))).thenCompose(f -> f);
  }
}
