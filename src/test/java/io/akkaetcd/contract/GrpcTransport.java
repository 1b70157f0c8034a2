package io.akkaetcd.contract;

import akka.NotUsed;
import akka.actor.ActorSystem;
import akka.grpc.GrpcClientSettings;
import akka.grpc.javadsl.AkkaGrpcClient;
import akka.stream.javadsl.Source;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.KVClient;
import io.akkaetcd.proto.etcdserverpb.LeaseClient;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.etcdserverpb.WatchClient;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import scala.runtime.AbstractFunction1;

/**
 * The contract over gRPC: Akka gRPC's generated clients of the member's client URL. etcd's errors
 * arrive as a {@link StatusRuntimeException}, mapped to the status code's name and description.
 */
final class GrpcTransport implements Transport, AutoCloseable {
  private final KVClient kv;
  private final WatchClient watch;
  private final LeaseClient lease;

  GrpcTransport(String host, int port, ActorSystem system) {
    StaticAddress resolver = new StaticAddress(host, port);
    GrpcClientSettings settings = GrpcClientSettings.connectToServiceAt(host, port, system).withTls(false)
        .withChannelBuilderOverrides(new AbstractFunction1<NettyChannelBuilder, NettyChannelBuilder>() {
          @Override
          public NettyChannelBuilder apply(NettyChannelBuilder builder) {
            return builder.nameResolverFactory(resolver);
          }
        });
    this.kv = KVClient.create(settings, system);
    this.watch = WatchClient.create(settings, system);
    this.lease = LeaseClient.create(settings, system);
  }

  /** The status's code and text; anything else stays as it is, for the test to show. */
  static Throwable normalise(Throwable t) {
    return t instanceof StatusRuntimeException e
        ? new RpcFailure(e.getStatus().getCode().name(), e.getStatus().getDescription()) : t;
  }

  private static <T> CompletionStage<T> n(CompletionStage<T> stage) {
    return RpcFailure.normalised(stage, GrpcTransport::normalise);
  }

  @Override
  public CompletionStage<RangeResponse> range(RangeRequest request) {
    return n(kv.range(request));
  }

  @Override
  public CompletionStage<PutResponse> put(PutRequest request) {
    return n(kv.put(request));
  }

  @Override
  public CompletionStage<DeleteRangeResponse> deleteRange(DeleteRangeRequest request) {
    return n(kv.deleteRange(request));
  }

  @Override
  public CompletionStage<TxnResponse> txn(TxnRequest request) {
    return n(kv.txn(request));
  }

  @Override
  public CompletionStage<CompactionResponse> compact(CompactionRequest request) {
    return n(kv.compact(request));
  }

  @Override
  public Source<WatchResponse, NotUsed> watch(WatchCreateRequest request) {
    // The request side stays open for as long as the responses are read, as a client's does.
    Source<WatchRequest, NotUsed> requests = Source.single(WatchRequest.newBuilder().setCreateRequest(request).build())
        .concat(Source.never());
    return watch.watch(requests).mapError(Throwable.class, GrpcTransport::normalise);
  }

  @Override
  public CompletionStage<LeaseGrantResponse> leaseGrant(LeaseGrantRequest request) {
    return n(lease.leaseGrant(request));
  }

  @Override
  public CompletionStage<LeaseRevokeResponse> leaseRevoke(long id) {
    return n(lease.leaseRevoke(LeaseRevokeRequest.newBuilder().setID(id).build()));
  }

  @Override
  public CompletionStage<LeaseTimeToLiveResponse> leaseTimeToLive(long id, boolean keys) {
    return n(lease.leaseTimeToLive(LeaseTimeToLiveRequest.newBuilder().setID(id).setKeys(keys).build()));
  }

  @Override
  public CompletionStage<LeaseLeasesResponse> leaseLeases() {
    return n(lease.leaseLeases(LeaseLeasesRequest.getDefaultInstance()));
  }

  @Override
  public Source<LeaseKeepAliveResponse, NotUsed> leaseKeepAlive(Source<LeaseKeepAliveRequest, NotUsed> requests) {
    return lease.leaseKeepAlive(requests).mapError(Throwable.class, GrpcTransport::normalise);
  }

  @Override
  public void close() throws Exception {
    for (AkkaGrpcClient client : List.<AkkaGrpcClient>of(kv, watch, lease)) {
      client.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "gRPC";
  }
}
