package io.akkaetcd.embed;

import com.google.protobuf.ByteString;
import io.akkaetcd.api.KvService;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import java.util.concurrent.CompletionStage;

/**
 * etcd's KV service in-process: the wire API's request and response messages, handed to the same
 * {@link KvService} the gRPC transport calls (no encoding). Reads are linearizable unless the
 * request asks for {@code serializable}; writes go through Raft (a follower forwards them).
 * Failures are {@link io.akkaetcd.errors.EtcdException}s with etcd's error.
 */
public final class Kv {
  private final Calls calls;
  private final KvService service;

  Kv(Calls calls, KvService service) {
    this.calls = calls;
    this.service = service;
  }

  /** Range as the request says: linearizable by default, serializable if it sets {@code serializable}. */
  public CompletionStage<RangeResponse> range(RangeRequest request) {
    // A learner serves serializable reads only; the service itself refuses a linearizable one.
    return calls.unary(Methods.RANGE, request, service::range);
  }

  /** A linearizable read of one key. */
  public CompletionStage<RangeResponse> get(ByteString key) {
    return range(RangeRequest.newBuilder().setKey(key).build());
  }

  /** A serializable read of one key: this member's applied state, without a read-index round. */
  public CompletionStage<RangeResponse> getSerializable(ByteString key) {
    return range(RangeRequest.newBuilder().setKey(key).setSerializable(true).build());
  }

  public CompletionStage<PutResponse> put(PutRequest request) {
    return calls.unary(Methods.PUT, request, service::put);
  }

  public CompletionStage<PutResponse> put(ByteString key, ByteString value) {
    return put(PutRequest.newBuilder().setKey(key).setValue(value).build());
  }

  public CompletionStage<DeleteRangeResponse> delete(DeleteRangeRequest request) {
    return calls.unary(Methods.DELETE_RANGE, request, service::deleteRange);
  }

  public CompletionStage<DeleteRangeResponse> delete(ByteString key) {
    return delete(DeleteRangeRequest.newBuilder().setKey(key).build());
  }

  /** A txn: through Raft if it writes, else served as a linearizable read (as etcd does). */
  public CompletionStage<TxnResponse> txn(TxnRequest request) {
    return calls.unary(Methods.TXN, request, service::txn);
  }

  public CompletionStage<CompactionResponse> compact(CompactionRequest request) {
    return calls.unary(Methods.COMPACT, request, service::compact);
  }

  /** Compacts the history before {@code revision}. */
  public CompletionStage<CompactionResponse> compact(long revision) {
    return compact(CompactionRequest.newBuilder().setRevision(revision).build());
  }
}
