package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.api.pipeline.Call;
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

/**
 * The recipes' {@link Store} on a member: each call goes through the member's {@link Pipeline}
 * as an in-process call of the KV, Lease or Watch method it is, to the same service instances
 * the gRPC transport calls, as etcd's v3lock and v3election call the member through its own
 * client. Failures are the bare etcd errors.
 */
final class PipelineStore implements Store {
  private final Pipeline pipeline;
  private final KvService kv;
  private final LeaseService lease;
  private final WatchService watch;

  PipelineStore(Pipeline pipeline, KvService kv, LeaseService lease, WatchService watch) {
    this.pipeline = pipeline;
    this.kv = kv;
    this.lease = lease;
    this.watch = watch;
  }

  @Override
  public CompletionStage<TxnResponse> txn(TxnRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.TXN), request, kv::txn));
  }

  @Override
  public CompletionStage<RangeResponse> range(RangeRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.RANGE), request, kv::range));
  }

  @Override
  public CompletionStage<DeleteRangeResponse> delete(DeleteRangeRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.DELETE_RANGE), request, kv::deleteRange));
  }

  @Override
  public CompletionStage<LeaseGrantResponse> grant(LeaseGrantRequest request) {
    return unwrapped(pipeline.unary(Call.inProcess(Methods.LEASE_GRANT), request, lease::leaseGrant));
  }

  @Override
  public Source<WatchResponse, NotUsed> watch(WatchCreateRequest request) {
    return SingleWatch.of(request, in -> pipeline.stream(Call.inProcess(Methods.WATCH), in, watch::watch))
        .mapError(Throwable.class, EtcdFailures::cause);
  }

  private static <R> CompletionStage<R> unwrapped(CompletionStage<R> result) {
    return result.handle((r, e) -> e == null ? CompletableFuture.completedFuture(r)
        : CompletableFuture.<R>failedFuture(EtcdFailures.cause(e))).thenCompose(f -> f);
  }
}
