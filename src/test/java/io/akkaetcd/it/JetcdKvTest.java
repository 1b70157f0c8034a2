package io.akkaetcd.it;

import static io.akkaetcd.it.Jetcd.assertFails;
import static io.akkaetcd.it.Jetcd.await;
import static io.akkaetcd.it.Jetcd.bytes;
import static io.akkaetcd.it.Jetcd.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.api.Compare;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.RequestOp;
import io.etcd.jetcd.api.TxnRequest;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.maintenance.HashKVResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The KV, Maintenance and Cluster APIs through jetcd 0.7.7 (and raw grpc-java stubs for what
 * jetcd cannot send: ignore_value and lease compares). One server for the class; each test
 * uses its own key prefix. Compaction runs late and the restart last (ordered).
 * Target: akka-etcd, or real etcd with {@code -Dit.candidate=etcd}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JetcdKvTest {
  private ServerUnderTest server;
  private Client client;
  private KV kv;

  @BeforeAll
  void start() {
    server = ServerUnderTest.candidate().start(List.of());
    client = Jetcd.client(server);
    kv = client.getKVClient();
  }

  @AfterAll
  void stop() {
    try {
      if (client != null) {
        client.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  @Test
  @Order(1)
  void putGetDeleteWithRevisions() {
    PutResponse first = await(kv.put(bytes("pgd/k"), bytes("v1")));
    long r1 = first.getHeader().getRevision();
    assertFalse(first.hasPrevKv());

    GetResponse got = await(kv.get(bytes("pgd/k")));
    assertEquals(r1, got.getHeader().getRevision());
    assertEquals(1, got.getCount());
    KeyValue kv1 = got.getKvs().get(0);
    assertEquals("v1", text(kv1.getValue()));
    assertEquals(r1, kv1.getCreateRevision());
    assertEquals(r1, kv1.getModRevision());
    assertEquals(1, kv1.getVersion());
    assertEquals(0, kv1.getLease());

    PutResponse second = await(kv.put(bytes("pgd/k"), bytes("v2"),
        PutOption.builder().withPrevKV().build()));
    long r2 = second.getHeader().getRevision();
    assertEquals(r1 + 1, r2);
    assertTrue(second.hasPrevKv());
    assertEquals("v1", text(second.getPrevKv().getValue()));

    KeyValue kv2 = await(kv.get(bytes("pgd/k"))).getKvs().get(0);
    assertEquals(r1, kv2.getCreateRevision());
    assertEquals(r2, kv2.getModRevision());
    assertEquals(2, kv2.getVersion());

    assertEquals("v1", text(await(kv.get(bytes("pgd/k"),
        GetOption.builder().withRevision(r1).build())).getKvs().get(0).getValue()));
    assertEquals(0, await(kv.get(bytes("pgd/k"),
        GetOption.builder().withRevision(r1 - 1).build())).getCount());

    DeleteResponse deleted = await(kv.delete(bytes("pgd/k"),
        DeleteOption.builder().withPrevKV(true).build()));
    assertEquals(1, deleted.getDeleted());
    assertEquals(r2 + 1, deleted.getHeader().getRevision());
    assertEquals("v2", text(deleted.getPrevKvs().get(0).getValue()));
    assertEquals(0, await(kv.get(bytes("pgd/k"))).getCount());

    DeleteResponse none = await(kv.delete(bytes("pgd/k")));
    assertEquals(0, none.getDeleted());
    assertEquals(r2 + 1, none.getHeader().getRevision(), "a delete of nothing is no revision");

    PutResponse again = await(kv.put(bytes("pgd/k"), bytes("v3")));
    KeyValue kv3 = await(kv.get(bytes("pgd/k"))).getKvs().get(0);
    assertEquals(again.getHeader().getRevision(), kv3.getCreateRevision(), "a new generation");
    assertEquals(1, kv3.getVersion());
  }

  @Test
  @Order(2)
  void prefixLimitSortCountAndRevisionFilters() {
    List<String> keys = List.of("pl/a", "pl/b", "pl/c", "pl/d", "pl/e");
    List<String> values = List.of("5", "3", "1", "4", "2");
    List<Long> revs = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      revs.add(await(kv.put(bytes(keys.get(i)), bytes(values.get(i)))).getHeader().getRevision());
    }
    await(kv.put(bytes("pl/b"), bytes("3")));
    await(kv.put(bytes("pm"), bytes("outside")));
    ByteSequence prefix = bytes("pl/");

    GetResponse all = await(kv.get(prefix, GetOption.builder().isPrefix(true).build()));
    assertEquals(keys, keysOf(all));
    assertEquals(5, all.getCount());
    assertFalse(all.isMore());

    GetResponse limited = await(kv.get(prefix,
        GetOption.builder().isPrefix(true).withLimit(2).build()));
    assertEquals(List.of("pl/a", "pl/b"), keysOf(limited));
    assertEquals(5, limited.getCount(), "count ignores the limit");
    assertTrue(limited.isMore());

    GetResponse byValueDesc = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withSortField(GetOption.SortTarget.VALUE).withSortOrder(GetOption.SortOrder.DESCEND)
        .build()));
    assertEquals(List.of("pl/a", "pl/d", "pl/b", "pl/e", "pl/c"), keysOf(byValueDesc));

    GetResponse byKeyDescLimit = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withSortField(GetOption.SortTarget.KEY).withSortOrder(GetOption.SortOrder.DESCEND)
        .withLimit(2).build()));
    assertEquals(List.of("pl/e", "pl/d"), keysOf(byKeyDescLimit));
    assertTrue(byKeyDescLimit.isMore());

    GetResponse byVersion = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withSortField(GetOption.SortTarget.VERSION).withSortOrder(GetOption.SortOrder.DESCEND)
        .withLimit(1).build()));
    assertEquals(List.of("pl/b"), keysOf(byVersion));

    GetResponse byModAsc = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withSortField(GetOption.SortTarget.MOD).withSortOrder(GetOption.SortOrder.ASCEND)
        .build()));
    assertEquals(List.of("pl/a", "pl/c", "pl/d", "pl/e", "pl/b"), keysOf(byModAsc));

    GetResponse keysOnly = await(kv.get(prefix,
        GetOption.builder().isPrefix(true).withKeysOnly(true).build()));
    assertEquals(keys, keysOf(keysOnly));
    assertTrue(keysOnly.getKvs().stream().allMatch(k -> k.getValue().isEmpty()));

    GetResponse countOnly = await(kv.get(prefix,
        GetOption.builder().isPrefix(true).withCountOnly(true).build()));
    assertEquals(5, countOnly.getCount());
    assertTrue(countOnly.getKvs().isEmpty());

    GetResponse range = await(kv.get(bytes("pl/b"),
        GetOption.builder().withRange(bytes("pl/d")).build()));
    assertEquals(List.of("pl/b", "pl/c"), keysOf(range));

    GetResponse minMod = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withMinModRevision(revs.get(3)).build()));
    assertEquals(List.of("pl/b", "pl/d", "pl/e"), keysOf(minMod));
    GetResponse maxMod = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withMaxModRevision(revs.get(2)).build()));
    assertEquals(List.of("pl/a", "pl/c"), keysOf(maxMod));
    GetResponse createWindow = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withMinCreateRevision(revs.get(1)).withMaxCreateRevision(revs.get(3)).build()));
    assertEquals(List.of("pl/b", "pl/c", "pl/d"), keysOf(createWindow));

    GetResponse atRevision = await(kv.get(prefix, GetOption.builder().isPrefix(true)
        .withRevision(revs.get(2)).build()));
    assertEquals(List.of("pl/a", "pl/b", "pl/c"), keysOf(atRevision));
    assertEquals(1, atRevision.getKvs().get(1).getVersion(), "pl/b as it was then");

    GetResponse serializable = await(kv.get(prefix,
        GetOption.builder().isPrefix(true).withSerializable(true).build()));
    assertEquals(keys, keysOf(serializable));

    DeleteResponse deleted = await(kv.delete(bytes("pl/b"),
        DeleteOption.builder().withRange(bytes("pl/d")).withPrevKV(true).build()));
    assertEquals(2, deleted.getDeleted());
    assertEquals(List.of("pl/a", "pl/d", "pl/e"),
        keysOf(await(kv.get(prefix, GetOption.builder().isPrefix(true).build()))));
    assertEquals(3, await(kv.delete(prefix,
        DeleteOption.builder().isPrefix(true).build())).getDeleted());
    assertEquals(0, await(kv.get(prefix, GetOption.builder().isPrefix(true).build())).getCount());
    assertEquals(List.of("pm"), keysOf(await(kv.get(bytes("pm")))));
  }

  @Test
  @Order(3)
  void txnComparesAndBranches() {
    long r = await(kv.put(bytes("tx/a"), bytes("1"))).getHeader().getRevision();
    await(kv.put(bytes("tx/a"), bytes("2")));

    TxnResponse success = await(kv.txn()
        .If(new Cmp(bytes("tx/a"), Cmp.Op.EQUAL, CmpTarget.value(bytes("2"))),
            new Cmp(bytes("tx/a"), Cmp.Op.EQUAL, CmpTarget.version(2)),
            new Cmp(bytes("tx/a"), Cmp.Op.EQUAL, CmpTarget.createRevision(r)),
            new Cmp(bytes("tx/a"), Cmp.Op.GREATER, CmpTarget.modRevision(r)),
            new Cmp(bytes("tx/missing"), Cmp.Op.EQUAL, CmpTarget.version(0)))
        .Then(Op.put(bytes("tx/b"), bytes("b"), PutOption.DEFAULT),
            Op.put(bytes("tx/c"), bytes("c"), PutOption.DEFAULT),
            Op.get(bytes("tx/"), GetOption.builder().isPrefix(true).build()))
        .Else(Op.put(bytes("tx/never"), bytes("x"), PutOption.DEFAULT))
        .commit());
    assertTrue(success.isSucceeded());
    long txnRev = success.getHeader().getRevision();
    assertEquals(r + 2, txnRev, "one revision for the whole txn");
    assertEquals(2, success.getPutResponses().size());
    GetResponse inside = success.getGetResponses().get(0);
    assertEquals(List.of("tx/a", "tx/b", "tx/c"), keysOf(inside), "a txn sees its own writes");
    assertEquals(txnRev, inside.getKvs().get(1).getModRevision());

    TxnResponse failure = await(kv.txn()
        .If(new Cmp(bytes("tx/a"), Cmp.Op.LESS, CmpTarget.value(bytes("2"))))
        .Then(Op.put(bytes("tx/never"), bytes("x"), PutOption.DEFAULT))
        .Else(Op.delete(bytes("tx/b"), DeleteOption.builder().withPrevKV(true).build()),
            Op.get(bytes("tx/b"), GetOption.DEFAULT))
        .commit());
    assertFalse(failure.isSucceeded());
    assertEquals(txnRev + 1, failure.getHeader().getRevision());
    assertEquals(1, failure.getDeleteResponses().get(0).getDeleted());
    assertEquals("b", text(failure.getDeleteResponses().get(0).getPrevKvs().get(0).getValue()));
    assertEquals(0, failure.getGetResponses().get(0).getCount());
    assertEquals(0, await(kv.get(bytes("tx/never"))).getCount());

    TxnResponse readOnly = await(kv.txn()
        .If(new Cmp(bytes("tx/a"), Cmp.Op.EQUAL, CmpTarget.value(bytes("nope"))))
        .Then(Op.put(bytes("tx/never"), bytes("x"), PutOption.DEFAULT))
        .Else(Op.get(bytes("tx/a"), GetOption.DEFAULT))
        .commit());
    assertFalse(readOnly.isSucceeded());
    assertEquals(txnRev + 1, readOnly.getHeader().getRevision(), "no writes, no revision");
    assertEquals(txnRev + 1, await(kv.get(bytes("tx/a"))).getHeader().getRevision());
  }

  @Test
  @Order(4)
  void leaseCompareAndIgnoreValueThroughRawGrpc() throws Exception {
    long lease = await(client.getLeaseClient().grant(600)).getID();
    await(kv.put(bytes("lc/k"), bytes("v"), PutOption.builder().withLeaseId(lease).build()));
    ManagedChannel channel = channel(server);
    try {
      KVGrpc.KVBlockingStub stub = KVGrpc.newBlockingStub(channel)
          .withDeadlineAfter(Jetcd.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      io.etcd.jetcd.api.TxnResponse same = stub.txn(TxnRequest.newBuilder()
          .addCompare(leaseCompare("lc/k", lease))
          .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder()
              .setKey(ByteString.copyFromUtf8("lc/k")).setIgnoreValue(true).setIgnoreLease(true)))
          .build());
      assertTrue(same.getSucceeded());
      KeyValue after = await(kv.get(bytes("lc/k"))).getKvs().get(0);
      assertEquals("v", text(after.getValue()), "ignore_value kept the value");
      assertEquals(lease, after.getLease(), "ignore_lease kept the lease");
      assertEquals(2, after.getVersion());

      io.etcd.jetcd.api.TxnResponse other = stub.txn(TxnRequest.newBuilder()
          .addCompare(leaseCompare("lc/k", 0))
          .build());
      assertFalse(other.getSucceeded());

      StatusRuntimeException missing = org.junit.jupiter.api.Assertions.assertThrows(
          StatusRuntimeException.class, () -> stub.put(PutRequest.newBuilder()
              .setKey(ByteString.copyFromUtf8("lc/missing")).setIgnoreValue(true).build()));
      assertEquals(Status.Code.INVALID_ARGUMENT, missing.getStatus().getCode());
      assertEquals("etcdserver: key not found", missing.getStatus().getDescription());

      StatusRuntimeException valueGiven = org.junit.jupiter.api.Assertions.assertThrows(
          StatusRuntimeException.class, () -> stub.put(PutRequest.newBuilder()
              .setKey(ByteString.copyFromUtf8("lc/k")).setValue(ByteString.copyFromUtf8("x"))
              .setIgnoreValue(true).build()));
      assertEquals(Status.Code.INVALID_ARGUMENT, valueGiven.getStatus().getCode());
      assertEquals("etcdserver: value is provided", valueGiven.getStatus().getDescription());
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      await(client.getLeaseClient().revoke(lease));
    }
  }

  @Test
  @Order(5)
  void errorsCarryEtcdsExactText() {
    long now = await(kv.put(bytes("er/k"), bytes("v"))).getHeader().getRevision();
    assertFails(Status.Code.INVALID_ARGUMENT, "etcdserver: key is not provided",
        kv.put(ByteSequence.EMPTY, bytes("v")));
    assertFails(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        kv.get(bytes("er/k"), GetOption.builder().withRevision(now + 1000).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request",
        kv.txn().Then(Op.put(bytes("er/d"), bytes("1"), PutOption.DEFAULT),
            Op.put(bytes("er/d"), bytes("2"), PutOption.DEFAULT)).commit());
    assertFails(Status.Code.INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request",
        kv.txn().Then(Op.delete(bytes("er/"), DeleteOption.builder().isPrefix(true).build()),
            Op.put(bytes("er/d"), bytes("2"), PutOption.DEFAULT)).commit());
    Op[] ops = new Op[129];
    for (int i = 0; i < ops.length; i++) {
      ops[i] = Op.put(bytes("er/many" + i), bytes("x"), PutOption.DEFAULT);
    }
    assertFails(Status.Code.INVALID_ARGUMENT, "etcdserver: too many operations in txn request",
        kv.txn().Then(ops).commit());
    assertFails(Status.Code.NOT_FOUND, "etcdserver: requested lease not found",
        kv.put(bytes("er/l"), bytes("v"), PutOption.builder().withLeaseId(0x1234abcdL).build()));
    assertFails(Status.Code.INVALID_ARGUMENT, "etcdserver: request is too large",
        kv.put(bytes("er/big"), ByteSequence.from(new byte[1_700_000])));
    assertEquals(now, await(kv.get(bytes("er/"), GetOption.builder().isPrefix(true).build()))
        .getHeader().getRevision(), "no failed request advanced the revision");
  }

  @Test
  @Order(6)
  void manyClientsPutConcurrentlyAndEveryPutIsVisible() {
    int clients = 8;
    int putsEach = 40;
    Map<String, Long> revisionOf = new ConcurrentHashMap<>();
    List<CompletableFuture<Void>> workers = new ArrayList<>();
    List<Client> opened = new ArrayList<>();
    try {
      for (int c = 0; c < clients; c++) {
        Client own = Jetcd.client(server);
        opened.add(own);
        int id = c;
        workers.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; i < putsEach; i++) {
            String key = "cc/" + id + "/" + i;
            long rev = await(own.getKVClient().put(bytes(key), bytes("value-" + key)))
                .getHeader().getRevision();
            revisionOf.put(key, rev);
          }
        }));
      }
      workers.forEach(Jetcd::await);
    } finally {
      opened.forEach(Client::close);
    }
    assertEquals(clients * putsEach, revisionOf.size());
    Set<Long> distinct = new HashSet<>(revisionOf.values());
    assertEquals(revisionOf.size(), distinct.size(), "every put got its own revision");
    GetResponse all = await(kv.get(bytes("cc/"), GetOption.builder().isPrefix(true).build()));
    assertEquals(clients * putsEach, all.getCount());
    for (KeyValue k : all.getKvs()) {
      String key = text(k.getKey());
      assertEquals("value-" + key, text(k.getValue()));
      assertEquals(revisionOf.get(key), k.getModRevision(), key);
    }
  }

  @Test
  @Order(7)
  void statusAndMemberList() {
    StatusResponse status = await(client.getMaintenanceClient().statusMember(server.clientUrl()));
    assertFalse(status.getVersion().isEmpty(), "version");
    assertTrue(status.getDbSize() > 0, "db size");
    long memberId = status.getHeader().getMemberId();
    assertNotEquals(0, memberId);
    assertEquals(memberId, status.getLeader(), "a single member leads");
    assertTrue(status.getRaftIndex() > 0, "raft index");
    assertTrue(status.getRaftTerm() > 0, "raft term");
    assertNotEquals(0, status.getHeader().getClusterId());

    List<Member> members = await(client.getClusterClient().listMember()).getMembers();
    assertEquals(1, members.size());
    Member member = members.get(0);
    assertEquals(memberId, member.getId());
    assertEquals(ServerProcess.MEMBER_NAME, member.getName());
    assertEquals(List.of(URI.create(server.clientUrl())), member.getClientURIs());
    assertEquals(1, member.getPeerURIs().size());
    assertFalse(member.isLearner());
  }

  @Test
  @Order(8)
  void compaction() {
    long r1 = await(kv.put(bytes("cp/k"), bytes("1"))).getHeader().getRevision();
    long r2 = await(kv.put(bytes("cp/k"), bytes("2"))).getHeader().getRevision();
    long r3 = await(kv.put(bytes("cp/k"), bytes("3"))).getHeader().getRevision();
    assertEquals(r3, await(kv.compact(r2, CompactOption.builder().withCompactPhysical(true)
        .build())).getHeader().getRevision(), "compaction is no new revision");
    assertFails(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
        kv.get(bytes("cp/k"), GetOption.builder().withRevision(r1).build()));
    assertEquals("2", text(await(kv.get(bytes("cp/k"),
        GetOption.builder().withRevision(r2).build())).getKvs().get(0).getValue()));
    assertFails(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
        kv.compact(r2));
    assertFails(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
        kv.compact(r1));
    assertFails(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        kv.compact(r3 + 100));
    HashKVResponse hash = await(client.getMaintenanceClient().hashKV(server.clientUrl(), 0));
    assertEquals(r2, hash.getCompacted());
  }

  @Test
  @Order(100)
  void hashKvIsStableAcrossARestart() {
    await(kv.put(bytes("hk/k"), bytes("v")));
    HashKVResponse before = await(client.getMaintenanceClient().hashKV(server.clientUrl(), 0));
    long revision = before.getHeader().getRevision();
    client.close();
    client = null;
    int exit = server.stop();
    assertTrue(exit == 0 || exit == 143, "exit code after SIGTERM: " + exit);
    server.restart();
    client = Jetcd.client(server);
    kv = client.getKVClient();
    HashKVResponse after = await(client.getMaintenanceClient().hashKV(server.clientUrl(), revision));
    assertEquals(before.getHash(), after.getHash(), "hash of the same revision after restart");
    assertEquals(before.getCompacted(), after.getCompacted());
    assertEquals(revision, after.getHeader().getRevision());
    HashKVResponse latest = await(client.getMaintenanceClient().hashKV(server.clientUrl(), 0));
    assertEquals(before.getHash(), latest.getHash());
  }

  /**
   * {@code lease(key) = id}: jetcd 0.7.7's proto predates the LEASE target (enum 4) and its
   * {@code lease} field (8, in target_union), so both go on the wire as raw values.
   */
  private static Compare leaseCompare(String key, long lease) {
    return Compare.newBuilder().setKey(ByteString.copyFromUtf8(key))
        .setTargetValue(4).setResult(Compare.CompareResult.EQUAL)
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(8, UnknownFieldSet.Field.newBuilder().addVarint(lease).build()).build())
        .build();
  }

  static ManagedChannel channel(ServerUnderTest server) {
    URI uri = URI.create(server.clientUrl());
    return NettyChannelBuilder.forAddress(uri.getHost(), uri.getPort()).usePlaintext().build();
  }

  private static List<String> keysOf(GetResponse response) {
    return response.getKvs().stream().map(k -> text(k.getKey())).toList();
  }
}
