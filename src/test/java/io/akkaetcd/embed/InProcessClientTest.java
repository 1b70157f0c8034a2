package io.akkaetcd.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.stream.Materializer;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.SinkQueueWithCancel;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.akkaetcd.e2e.EmbeddedMember;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.CompactionResponse;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The in-process client against the wire API's contract: the same KV sequence through it on one
 * fresh member and through gRPC on another gives the same responses (headers and all, but for
 * the members' ids) and the same errors; watch replays history and then follows live; leases
 * grant, keep alive, report and revoke with their keys. The comparison runs first, on fresh members,
 * so that both start from the same revision.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InProcessClientTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static EmbeddedMember inProcess;
  private static EmbeddedMember overGrpc;
  private static ManagedChannel channel;
  private static ActorSystem testSystem;
  private static Materializer mat;

  @BeforeAll
  static void start() {
    inProcess = new EmbeddedMember("--max-txn-ops", "8");
    overGrpc = new EmbeddedMember("--max-txn-ops", "8");
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", overGrpc.port()).usePlaintext().build();
    testSystem = ActorSystem.create("in-process-client-test");
    mat = Materializer.matFromSystem(testSystem);
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    testSystem.terminate();
    inProcess.close();
    overGrpc.close();
  }

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  /** The KV calls of the contract, by either transport; each answers a response or throws etcd's error. */
  interface KvCalls {
    Message put(PutRequest r) throws Exception;

    Message range(RangeRequest r) throws Exception;

    Message delete(DeleteRangeRequest r) throws Exception;

    Message txn(TxnRequest r) throws Exception;

    Message compact(CompactionRequest r) throws Exception;
  }

  interface Call {
    Message run(KvCalls kv) throws Exception;
  }

  /** The sequence both transports run, successes and etcd's errors mixed. */
  static final List<Call> SEQUENCE = List.of(
      kv -> kv.put(PutRequest.newBuilder().setKey(b("a")).setValue(b("1")).build()),
      kv -> kv.put(PutRequest.newBuilder().setKey(b("b")).setValue(b("2")).setPrevKv(true).build()),
      kv -> kv.put(PutRequest.newBuilder().setKey(b("a")).setValue(b("3")).setPrevKv(true).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).setRangeEnd(b("\0")).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).setRevision(2).setSerializable(true).build()),
      kv -> kv.txn(TxnRequest.newBuilder()
          .addCompare(Compare.newBuilder().setKey(b("a")).setTarget(Compare.CompareTarget.VALUE)
              .setResult(Compare.CompareResult.EQUAL).setValue(b("3")))
          .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b("c")).setValue(b("4"))))
          .addSuccess(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(b("a"))))
          .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(b("b"))))
          .build()),
      kv -> kv.txn(TxnRequest.newBuilder()
          .addCompare(Compare.newBuilder().setKey(b("b")).setTarget(Compare.CompareTarget.VERSION)
              .setResult(Compare.CompareResult.GREATER).setVersion(5))
          .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(b("b"))))
          .build()),
      kv -> kv.delete(DeleteRangeRequest.newBuilder().setKey(b("a")).setPrevKv(true).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).build()),
      kv -> kv.put(PutRequest.newBuilder().setValue(b("no key")).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).setRevision(100).build()),
      kv -> kv.txn(tooManyOps()),
      kv -> kv.put(PutRequest.newBuilder().setKey(b("l")).setValue(b("v")).setLease(12345).build()),
      kv -> kv.compact(CompactionRequest.newBuilder().setRevision(3).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).setRevision(2).build()),
      kv -> kv.compact(CompactionRequest.newBuilder().setRevision(2).build()),
      kv -> kv.delete(DeleteRangeRequest.newBuilder().setKey(b("a")).setRangeEnd(b("z")).build()),
      kv -> kv.range(RangeRequest.newBuilder().setKey(b("a")).setRangeEnd(b("z")).setCountOnly(true).build()));

  static TxnRequest tooManyOps() {
    TxnRequest.Builder t = TxnRequest.newBuilder();
    for (int i = 0; i < 9; i++) {
      t.addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b("t" + i)).setValue(b("v"))));
    }
    return t.build();
  }

  /** Each call's outcome: the response as text without the members' ids, or the error's code and text. */
  static List<String> outcomes(KvCalls kv) {
    List<String> out = new ArrayList<>();
    for (Call call : SEQUENCE) {
      try {
        out.add(TextFormat.printer().printToString(call.run(kv)).replaceAll("(cluster_id|member_id): \\d+\\n", ""));
      } catch (EtcdException e) {
        out.add("error " + e.error().code() + ": " + e.getMessage());
      } catch (StatusRuntimeException e) {
        out.add("error " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
    return out;
  }

  /** A stage's result, or the failure it completed with, unwrapped (the client fails with EtcdException). */
  static <T> T await(CompletionStage<T> stage) throws Exception {
    try {
      return stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof EtcdException etcd) {
        throw etcd;
      }
      throw e;
    }
  }

  static KvCalls inProcess(EtcdClient client) {
    Kv kv = client.kv();
    return new KvCalls() {
      public Message put(PutRequest r) throws Exception {
        return await(kv.put(r));
      }

      public Message range(RangeRequest r) throws Exception {
        return await(kv.range(r));
      }

      public Message delete(DeleteRangeRequest r) throws Exception {
        return await(kv.delete(r));
      }

      public Message txn(TxnRequest r) throws Exception {
        return await(kv.txn(r));
      }

      public Message compact(CompactionRequest r) throws Exception {
        return await(kv.compact(r));
      }
    };
  }

  static <Q extends Message, R extends Message> R grpc(String method, Q request, R responseType) {
    MethodDescriptor<Q, R> md = MethodDescriptor.<Q, R>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName("etcdserverpb.KV/" + method)
        .setRequestMarshaller(ProtoUtils.marshaller(request))
        .setResponseMarshaller(ProtoUtils.marshaller(responseType)).build();
    return ClientCalls.blockingUnaryCall(channel, md, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        request);
  }

  static final KvCalls GRPC = new KvCalls() {
    public Message put(PutRequest r) {
      return grpc("Put", r, PutResponse.getDefaultInstance());
    }

    public Message range(RangeRequest r) {
      return grpc("Range", r, RangeResponse.getDefaultInstance());
    }

    public Message delete(DeleteRangeRequest r) {
      return grpc("DeleteRange", r, DeleteRangeResponse.getDefaultInstance());
    }

    public Message txn(TxnRequest r) {
      return grpc("Txn", r, TxnResponse.getDefaultInstance());
    }

    public Message compact(CompactionRequest r) {
      return grpc("Compact", r, CompactionResponse.getDefaultInstance());
    }
  };

  @Test
  @Order(1)
  void kvAnswersAsGrpcDoesResponseForResponseAndErrorForError() {
    List<String> local = outcomes(inProcess(inProcess.server().client()));
    List<String> remote = outcomes(GRPC);
    assertEquals(remote, local);
    // and the errors are etcd's, exactly
    assertEquals("error INVALID_ARGUMENT: etcdserver: key is not provided", local.get(10));
    assertEquals("error OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision", local.get(11));
    assertEquals("error INVALID_ARGUMENT: etcdserver: too many operations in txn request", local.get(12));
    assertEquals("error NOT_FOUND: etcdserver: requested lease not found", local.get(13));
    assertEquals("error OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted", local.get(15));
    assertEquals("error OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted", local.get(16));
    assertTrue(local.get(5).contains("value: \"1\""), "a's value at revision 2: " + local.get(5));
  }

  @Test
  void failuresAreTheBareEtcdException() {
    Kv kv = inProcess.server().client().kv();
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> kv.put(b(""), b("v")).toCompletableFuture().get(10, TimeUnit.SECONDS));
    assertEquals(EtcdError.EMPTY_KEY, ((EtcdException) e.getCause()).error());
  }

  /** The events of the next responses until {@code n} have come (skipping the created response). */
  static List<String> events(SinkQueueWithCancel<WatchResponse> q, int n) throws Exception {
    List<String> events = new ArrayList<>();
    while (events.size() < n) {
      WatchResponse r = q.pull().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS)
          .orElseThrow(() -> new AssertionError("watch ended after " + events));
      for (Event ev : r.getEventsList()) {
        events.add(ev.getType() + " " + ev.getKv().getKey().toStringUtf8() + "=" + ev.getKv().getValue().toStringUtf8()
            + "@" + ev.getKv().getModRevision());
      }
    }
    return events;
  }

  @Test
  void watchReplaysHistoryFromARevisionThenFollowsLive() throws Exception {
    EtcdClient client = inProcess.server().client();
    long first = await(client.kv().put(b("w/1"), b("x"))).getHeader().getRevision();
    await(client.kv().put(b("w/2"), b("y")));
    await(client.kv().delete(b("w/1")));
    SinkQueueWithCancel<WatchResponse> q = client.watch()
        .watch(WatchCreateRequest.newBuilder().setKey(b("w/")).setRangeEnd(b("w0")).setStartRevision(first).build())
        .runWith(Sink.queue(), mat);
    try {
      WatchResponse created = q.pull().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS).orElseThrow();
      assertTrue(created.getCreated(), "first response says created: " + created);
      assertEquals(List.of("PUT w/1=x@" + first, "PUT w/2=y@" + (first + 1), "DELETE w/1=@" + (first + 2)),
          events(q, 3));
      await(client.kv().put(b("w/3"), b("z")));
      await(client.kv().put(b("other"), b("not watched")));
      await(client.kv().put(b("w/4"), b("zz")));
      assertEquals(List.of("PUT w/3=z@" + (first + 3), "PUT w/4=zz@" + (first + 5)), events(q, 2));
    } finally {
      q.cancel();
    }
  }

  @Test
  void aWatchFromACompactedRevisionIsCanceledWithTheCompactRevision() throws Exception {
    EtcdClient client = inProcess.server().client();
    long rev = await(client.kv().put(b("cw"), b("1"))).getHeader().getRevision();
    await(client.kv().put(b("cw"), b("2")));
    await(client.kv().compact(rev + 1));
    SinkQueueWithCancel<WatchResponse> q = client.watch().watch(b("cw"), rev).runWith(Sink.queue(), mat);
    try {
      WatchResponse r = q.pull().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS).orElseThrow();
      while (!r.getCanceled()) {
        r = q.pull().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS).orElseThrow();
      }
      assertEquals(rev + 1, r.getCompactRevision());
    } finally {
      q.cancel();
    }
  }

  @Test
  void leaseGrantKeepAliveTimeToLiveAndRevokeWithItsKeys() throws Exception {
    EtcdClient client = inProcess.server().client();
    long id = await(client.lease().grant(60)).getID();
    await(client.kv().put(PutRequest.newBuilder().setKey(b("lease/a")).setValue(b("1")).setLease(id).build()));
    await(client.kv().put(PutRequest.newBuilder().setKey(b("lease/b")).setValue(b("2")).setLease(id).build()));
    var ttl = await(client.lease().timeToLive(id, true));
    assertEquals(60, ttl.getGrantedTTL());
    assertTrue(ttl.getTTL() > 0 && ttl.getTTL() <= 60, "remaining " + ttl.getTTL());
    assertEquals(List.of(b("lease/a"), b("lease/b")), ttl.getKeysList());
    assertTrue(await(client.lease().leases()).getLeasesList().stream().anyMatch(l -> l.getID() == id));

    List<LeaseKeepAliveResponse> renewed = await(client.lease().keepAlive(id, Duration.ofMillis(100))
        .take(2).runWith(Sink.seq(), mat));
    assertEquals(2, renewed.size());
    renewed.forEach(r -> assertEquals(60, r.getTTL()));
    renewed.forEach(r -> assertEquals(id, r.getID()));

    long before = await(client.kv().get(b("x"))).getHeader().getRevision();
    long revoked = await(client.lease().revoke(id)).getHeader().getRevision();
    assertEquals(before + 1, revoked, "both keys deleted in one revision");
    assertEquals(0, await(client.kv().range(RangeRequest.newBuilder().setKey(b("lease/")).setRangeEnd(b("lease0"))
        .build())).getCount());
    assertEquals(-1, await(client.lease().timeToLive(id, false)).getTTL());
    EtcdException e = assertThrows(EtcdException.class, () -> await(client.lease().revoke(id)));
    assertEquals(EtcdError.LEASE_NOT_FOUND, e.error());
    assertEquals(0, await(client.lease().keepAlive(id, Duration.ofMillis(100)).take(1).runWith(Sink.head(), mat))
        .getTTL(), "a lease that is gone is kept alive with TTL 0, as etcd answers");
  }

  @Test
  void statusAndMemberListDescribeThisMember() throws Exception {
    EtcdClient client = inProcess.server().client();
    var status = await(client.members().status());
    var members = await(client.members().memberList());
    assertEquals(1, members.getMembersCount());
    assertEquals(members.getMembers(0).getID(), status.getHeader().getMemberId());
    assertEquals(status.getHeader().getMemberId(), status.getLeader());
    assertEquals(inProcess.url(), members.getMembers(0).getClientURLs(0));
  }
}
