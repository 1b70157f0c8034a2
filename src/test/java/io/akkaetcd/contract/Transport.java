package io.akkaetcd.contract;

import akka.NotUsed;
import akka.stream.javadsl.Source;
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
 * The part of etcd's v3 API the contract tests speak, with the wire's request and response
 * messages, so that one test runs over any client of a member. Every etcd error a call or stream
 * fails with arrives as an {@link RpcFailure} (gRPC code and etcd's text); anything else arrives
 * as it was raised, so that the test shows it.
 */
interface Transport {
  CompletionStage<RangeResponse> range(RangeRequest request);

  CompletionStage<PutResponse> put(PutRequest request);

  CompletionStage<DeleteRangeResponse> deleteRange(DeleteRangeRequest request);

  CompletionStage<TxnResponse> txn(TxnRequest request);

  CompletionStage<CompactionResponse> compact(CompactionRequest request);

  /** One watch stream holding the one watch {@code request} creates; cancelling the source ends it. */
  Source<WatchResponse, NotUsed> watch(WatchCreateRequest request);

  CompletionStage<LeaseGrantResponse> leaseGrant(LeaseGrantRequest request);

  CompletionStage<LeaseRevokeResponse> leaseRevoke(long id);

  CompletionStage<LeaseTimeToLiveResponse> leaseTimeToLive(long id, boolean keys);

  CompletionStage<LeaseLeasesResponse> leaseLeases();

  /** One keep-alive stream: a response per request, in order. */
  Source<LeaseKeepAliveResponse, NotUsed> leaseKeepAlive(Source<LeaseKeepAliveRequest, NotUsed> requests);
}
