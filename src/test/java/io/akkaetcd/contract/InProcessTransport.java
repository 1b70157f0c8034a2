package io.akkaetcd.contract;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import java.util.concurrent.CompletionStage;

/**
 * The contract over the in-process client: its failures must be the bare {@link EtcdException}
 * (not wrapped, not a gRPC status), which this maps to its code's name and its text.
 */
final class InProcessTransport implements Transport {
  private final EtcdClient client;

  InProcessTransport(EtcdClient client) {
    this.client = client;
  }

  /** etcd's error as its code and text; anything else stays as it is, for the test to show. */
  static Throwable normalise(Throwable t) {
    return t instanceof EtcdException e ? new RpcFailure(e.error().code().name(), e.getMessage()) : t;
  }

  private static <T> CompletionStage<T> n(CompletionStage<T> stage) {
    return RpcFailure.normalised(stage, InProcessTransport::normalise);
  }

  @Override
  public CompletionStage<RangeResponse> range(RangeRequest request) {
    return n(client.kv().range(request));
  }

  @Override
  public CompletionStage<PutResponse> put(PutRequest request) {
    return n(client.kv().put(request));
  }

  @Override
  public CompletionStage<DeleteRangeResponse> deleteRange(DeleteRangeRequest request) {
    return n(client.kv().delete(request));
  }

  @Override
  public CompletionStage<TxnResponse> txn(TxnRequest request) {
    return n(client.kv().txn(request));
  }

  @Override
  public CompletionStage<CompactionResponse> compact(CompactionRequest request) {
    return n(client.kv().compact(request));
  }

  @Override
  public Source<WatchResponse, NotUsed> watch(WatchCreateRequest request) {
    return client.watch().watch(request).mapError(Throwable.class, InProcessTransport::normalise);
  }

  @Override
  public CompletionStage<LeaseGrantResponse> leaseGrant(LeaseGrantRequest request) {
    return n(client.lease().grant(request));
  }

  @Override
  public CompletionStage<LeaseRevokeResponse> leaseRevoke(long id) {
    return n(client.lease().revoke(id));
  }

  @Override
  public CompletionStage<LeaseTimeToLiveResponse> leaseTimeToLive(long id, boolean keys) {
    return n(client.lease().timeToLive(id, keys));
  }

  @Override
  public CompletionStage<LeaseLeasesResponse> leaseLeases() {
    return n(client.lease().leases());
  }

  @Override
  public Source<LeaseKeepAliveResponse, NotUsed> leaseKeepAlive(Source<LeaseKeepAliveRequest, NotUsed> requests) {
    return client.lease().keepAlive(requests).mapError(Throwable.class, InProcessTransport::normalise);
  }

  @Override
  public String toString() {
    return "in-process";
  }
}
