package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** akka-etcd embedded in this JVM, driven by jetcd 0.7.7, a real etcd client. */
class JetcdKvTest {
  private static EmbeddedMember member;
  private static int port;
  private static Client client;
  private static KV kv;

  @BeforeAll
  static void start() {
    member = new EmbeddedMember("--max-txn-ops", "8");
    port = member.port();
    client = member.client();
    kv = client.getKVClient();
  }

  @AfterAll
  static void stop() {
    member.close();
  }

  static ByteSequence b(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static String s(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }

  /** The etcd error text of a failed call. */
  static String errorOf(CompletableFuture<?> f) {
    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
    Throwable t = e.getCause();
    while (t.getCause() != null && !(t instanceof StatusRuntimeException)) {
      t = t.getCause();
    }
    return t instanceof StatusRuntimeException sre ? sre.getStatus().getDescription() : t.getMessage();
  }

  @Test
  void putGetDeleteWithRevisions() throws Exception {
    PutResponse p1 = kv.put(b("jk/a"), b("1")).get();
    PutResponse p2 = kv.put(b("jk/a"), b("2"), PutOption.builder().withPrevKV().build()).get();
    assertEquals(p1.getHeader().getRevision() + 1, p2.getHeader().getRevision());
    assertEquals("1", s(p2.getPrevKv().getValue()));
    kv.put(b("jk/b"), b("3")).get();
    kv.put(b("jk/c"), b("4")).get();

    GetResponse all = kv.get(b("jk/"), GetOption.builder().isPrefix(true).withLimit(2).build()).get();
    assertEquals(3, all.getCount());
    assertEquals(2, all.getKvs().size());
    assertTrue(all.isMore());
    KeyValue a = all.getKvs().get(0);
    assertEquals(2, a.getVersion());
    assertEquals(p1.getHeader().getRevision(), a.getCreateRevision());

    GetResponse old = kv.get(b("jk/a"), GetOption.builder().withRevision(p1.getHeader().getRevision()).build()).get();
    assertEquals("1", s(old.getKvs().get(0).getValue()));

    GetResponse desc = kv.get(b("jk/"), GetOption.builder().isPrefix(true)
        .withSortField(GetOption.SortTarget.VALUE).withSortOrder(GetOption.SortOrder.DESCEND).build()).get();
    assertEquals(List.of("4", "3", "2"), desc.getKvs().stream().map(kv -> s(kv.getValue())).toList());

    assertEquals(3, kv.delete(b("jk/"), DeleteOption.builder().isPrefix(true).build()).get().getDeleted());
    assertEquals(0, kv.get(b("jk/"), GetOption.builder().isPrefix(true).build()).get().getCount());
  }

  /** A range over 1 MiB is streamed from the store (#33): jetcd reads the same keys, values and count. */
  @Test
  void aRangeOverAMebibyteArrivesWhole() throws Exception {
    byte[] value = new byte[40_000];
    for (int i = 0; i < 60; i++) { // 2.4 MB, under jetcd's 4 MiB inbound limit
      java.util.Arrays.fill(value, (byte) i);
      kv.put(b(String.format("jbig/%02d", i)), ByteSequence.from(value)).get();
    }
    GetResponse all = kv.get(b("jbig/"), GetOption.builder().isPrefix(true).build()).get();
    assertEquals(60, all.getCount());
    assertEquals(60, all.getKvs().size());
    for (int i = 0; i < 60; i++) {
      KeyValue k = all.getKvs().get(i);
      assertEquals(String.format("jbig/%02d", i), s(k.getKey()));
      assertEquals(40_000, k.getValue().size());
      assertEquals((byte) i, k.getValue().getBytes()[39_999]);
    }
    GetResponse limited = kv.get(b("jbig/"), GetOption.builder().isPrefix(true).withLimit(50).build()).get();
    assertEquals(60, limited.getCount());
    assertEquals(50, limited.getKvs().size());
    assertTrue(limited.isMore());
    kv.delete(b("jbig/"), DeleteOption.builder().isPrefix(true).build()).get();
  }

  @Test
  void txnCompareAndSwapIsOneRevision() throws Exception {
    long rev = kv.put(b("jt/x"), b("old")).get().getHeader().getRevision();
    TxnResponse ok = kv.txn().If(new Cmp(b("jt/x"), Cmp.Op.EQUAL, CmpTarget.value(b("old"))))
        .Then(Op.put(b("jt/x"), b("new"), PutOption.DEFAULT), Op.put(b("jt/y"), b("also"), PutOption.DEFAULT))
        .Else(Op.put(b("jt/x"), b("lost"), PutOption.DEFAULT)).commit().get();
    assertTrue(ok.isSucceeded());
    assertEquals(rev + 1, ok.getHeader().getRevision(), "two puts, one revision");
    TxnResponse no = kv.txn().If(new Cmp(b("jt/x"), Cmp.Op.EQUAL, CmpTarget.value(b("old"))))
        .Then(Op.put(b("jt/x"), b("again"), PutOption.DEFAULT)).commit().get();
    assertFalse(no.isSucceeded());
    assertEquals(rev + 1, no.getHeader().getRevision(), "a failed compare writes nothing");
    assertEquals("new", s(kv.get(b("jt/x")).get().getKvs().get(0).getValue()));
  }

  @Test
  void errorsCarryEtcdsExactText() {
    assertEquals("etcdserver: key is not provided", errorOf(kv.put(b(""), b("v"))));
    assertEquals("etcdserver: requested lease not found",
        errorOf(kv.put(b("je/k"), b("v"), PutOption.builder().withLeaseId(42).build())));
    assertEquals("etcdserver: mvcc: required revision is a future revision",
        errorOf(kv.get(b("je/k"), GetOption.builder().withRevision(1_000_000).build())));
    Op[] nine = new Op[9];
    for (int i = 0; i < nine.length; i++) {
      nine[i] = Op.put(b("je/t" + i), b("v"), PutOption.DEFAULT);
    }
    assertEquals("etcdserver: too many operations in txn request", errorOf(kv.txn().Then(nine).commit()));
    assertEquals("etcdserver: duplicate key given in txn request", errorOf(kv.txn()
        .Then(Op.put(b("je/d"), b("1"), PutOption.DEFAULT), Op.put(b("je/d"), b("2"), PutOption.DEFAULT)).commit()));
  }

  @Test
  void compactionMakesOldRevisionsUnreadable() throws Exception {
    long r1 = kv.put(b("jc/k"), b("1")).get().getHeader().getRevision();
    long r2 = kv.put(b("jc/k"), b("2")).get().getHeader().getRevision();
    kv.compact(r2, CompactOption.builder().withCompactPhysical(true).build()).get(10, TimeUnit.SECONDS);
    assertEquals("etcdserver: mvcc: required revision has been compacted",
        errorOf(kv.get(b("jc/k"), GetOption.builder().withRevision(r1).build())));
    assertEquals("2", s(kv.get(b("jc/k"), GetOption.builder().withRevision(r2).build()).get().getKvs().get(0).getValue()));
    assertEquals("etcdserver: mvcc: required revision has been compacted", errorOf(kv.compact(r1)));
  }

  @Test
  void manyClientsWriteConcurrentlyEachWithItsOwnRevision() throws Exception {
    List<CompletableFuture<PutResponse>> puts = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      puts.add(kv.put(b("jm/" + i), b("v" + i)));
    }
    Set<Long> revisions = new HashSet<>();
    for (CompletableFuture<PutResponse> p : puts) {
      revisions.add(p.get(30, TimeUnit.SECONDS).getHeader().getRevision());
    }
    assertEquals(400, revisions.size(), "every put got its own revision");
    GetResponse all = kv.get(b("jm/"), GetOption.builder().isPrefix(true).withCountOnly(true).build()).get();
    assertEquals(400, all.getCount());
  }

  @Test
  void maintenanceAndClusterAnswerLikeEtcd() throws Exception {
    var status = client.getMaintenanceClient().statusMember("http://127.0.0.1:" + port).get();
    assertEquals(status.getHeader().getMemberId(), status.getLeader(), "a lone member leads");
    assertTrue(status.getRaftIndex() > 0);
    assertTrue(status.getDbSize() > 0);
    var members = client.getClusterClient().listMember().get().getMembers();
    assertEquals(1, members.size());
    assertEquals("e1", members.get(0).getName());
    assertEquals(status.getHeader().getMemberId(), members.get(0).getId());
  }

  @Test
  void unknownServicesAndMethodsAreUnimplemented() throws Exception {
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      for (String method : List.of("no.such.Service/Call", "etcdserverpb.KV/NoSuchMethod", "etcdserverpb.Maintenance/Downgrade")) {
        MethodDescriptor<byte[], byte[]> md = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName(method)
            .setRequestMarshaller(new Bytes()).setResponseMarshaller(new Bytes()).build();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, md, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[0]));
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode(), method + ": " + e.getStatus());
      }
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aMalformedMessageIsRefusedAndTheMemberStaysUp() throws Exception {
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      byte[] garbage = {(byte) 0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x0f, 1, 2};
      for (String method : List.of("etcdserverpb.KV/Put", "etcdserverpb.Lease/LeaseGrant",
          "etcdserverpb.Cluster/MemberList", "etcdserverpb.Maintenance/Status")) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
            channel, raw(method), CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), garbage), method);
        assertTrue(e.getStatus().getCode() == Status.Code.INTERNAL
            || e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT, method + ": " + e.getStatus());
      }
    } finally {
      channel.shutdownNow();
    }
    kv.put(b("jmal/k"), b("fine")).get(10, TimeUnit.SECONDS);
    assertEquals("fine", s(kv.get(b("jmal/k")).get().getKvs().get(0).getValue()));
  }

  @Test
  void gzipCompressedRequestsAreServedAndAnsweredInTheEncodingTheClientAccepts() throws Exception {
    // grpc-java sends grpc-encoding as asked and grpc-accept-encoding: gzip, so the answers come back
    // gzip-compressed and it decompresses them. Alternating encodings on one connection checks that
    // the readers and writers shared between requests (GrpcNegotiation) keep their codecs apart.
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      long last = 0;
      for (String encoding : List.of("gzip", "identity", "gzip")) {
        byte[] put = io.akkaetcd.proto.etcdserverpb.PutRequest.newBuilder()
            .setKey(com.google.protobuf.ByteString.copyFromUtf8("jgz/" + encoding))
            .setValue(com.google.protobuf.ByteString.copyFromUtf8("v".repeat(1000))).build().toByteArray();
        byte[] answer = ClientCalls.blockingUnaryCall(channel, raw("etcdserverpb.KV/Put"),
            CallOptions.DEFAULT.withCompression(encoding).withDeadlineAfter(10, TimeUnit.SECONDS), put);
        long rev = io.akkaetcd.proto.etcdserverpb.PutResponse.parseFrom(answer).getHeader().getRevision();
        assertTrue(rev > last, "revision " + rev + " after " + last);
        last = rev;
      }
    } finally {
      channel.shutdownNow();
    }
    assertEquals("v".repeat(1000), s(kv.get(b("jgz/gzip")).get(10, TimeUnit.SECONDS).getKvs().get(0).getValue()));
  }

  @Test
  void aRequestInAnUnknownMessageEncodingIsUnimplemented() throws Exception {
    io.grpc.Codec unknown = new io.grpc.Codec() {
      @Override
      public String getMessageEncoding() {
        return "x-unknown";
      }

      @Override
      public java.io.OutputStream compress(java.io.OutputStream os) {
        return os;
      }

      @Override
      public InputStream decompress(InputStream is) {
        return is;
      }
    };
    io.grpc.CompressorRegistry registry = io.grpc.CompressorRegistry.newEmptyInstance();
    registry.register(unknown);
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
        .compressorRegistry(registry).build();
    try {
      byte[] put = io.akkaetcd.proto.etcdserverpb.PutRequest.newBuilder()
          .setKey(com.google.protobuf.ByteString.copyFromUtf8("jgz/unknown")).build().toByteArray();
      // The KV service and one on Akka gRPC's generated handler (Maintenance): the same answer.
      for (Map.Entry<String, byte[]> call : Map.of("etcdserverpb.KV/Put", put, "etcdserverpb.Maintenance/Status", new byte[0])
          .entrySet()) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(
            channel, raw(call.getKey()),
            CallOptions.DEFAULT.withCompression("x-unknown").withDeadlineAfter(10, TimeUnit.SECONDS), call.getValue()));
        // etcd 3.4 (grpc-go), asked the same by this client, answers exactly this
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode(), call.getKey() + ": " + e.getStatus());
        assertEquals("grpc: Decompressor is not installed for grpc-encoding \"x-unknown\"", e.getStatus().getDescription());
      }
    } finally {
      channel.shutdownNow();
    }
    assertTrue(kv.get(b("jgz/unknown")).get(10, TimeUnit.SECONDS).getKvs().isEmpty());
  }

  private static MethodDescriptor<byte[], byte[]> raw(String fullMethodName) {
    return MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethodName).setRequestMarshaller(new Bytes()).setResponseMarshaller(new Bytes())
        .build();
  }

  @Test
  void versionIsServedOverHttpWithoutAServerHeaderAsEtcdDoes() throws Exception {
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/version"))
            .timeout(java.time.Duration.ofSeconds(10)).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    assertEquals("{\"etcdserver\":\"3.5.0\",\"etcdcluster\":\"3.5.0\"}", r.body());
    assertTrue(r.headers().firstValue("server").isEmpty(), r.headers().map().toString());
  }

  @Test
  void hashKvIsStableAcrossARestart() throws Exception {
    kv.put(b("jh/k"), b("v")).get();
    var before = client.getMaintenanceClient().hashKV("http://127.0.0.1:" + port, 0).get();
    member.restart();
    client = member.client();
    kv = client.getKVClient();
    var after = client.getMaintenanceClient().hashKV("http://127.0.0.1:" + port, before.getHeader().getRevision()).get();
    assertEquals(before.getHash(), after.getHash());
    assertEquals("v", s(kv.get(b("jh/k")).get().getKvs().get(0).getValue()));
  }

  private static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
