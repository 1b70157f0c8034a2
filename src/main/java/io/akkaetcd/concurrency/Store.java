package io.akkaetcd.concurrency;

import akka.NotUsed;
import akka.stream.javadsl.Source;
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
import java.util.concurrent.CompletionStage;

/**
 * The seam between the recipes and the member: the KV, Lease and Watch calls etcd's v3lock and
 * v3election make through their in-process client. The member's implementation passes each call
 * through its request pipeline, as a client's own call, so the recipes see etcd's errors.
 */
public interface Store {
  CompletionStage<TxnResponse> txn(TxnRequest request);

  CompletionStage<RangeResponse> range(RangeRequest request);

  CompletionStage<DeleteRangeResponse> delete(DeleteRangeRequest request);

  CompletionStage<LeaseGrantResponse> grant(LeaseGrantRequest request);

  /** One watch stream for {@code request}: its created response, then events; cancel to end it. */
  Source<WatchResponse, NotUsed> watch(WatchCreateRequest request);
}
