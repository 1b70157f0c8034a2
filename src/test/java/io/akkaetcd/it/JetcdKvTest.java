package io.akkaetcd.it;

import static io.akkaetcd.it.Jetcd.await;
import static io.akkaetcd.it.Jetcd.bs;
import static io.akkaetcd.it.Jetcd.failure;
import static io.akkaetcd.it.Jetcd.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
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
import io.etcd.jetcd.options.GetOption.SortOrder;
import io.etcd.jetcd.options.GetOption.SortTarget;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** The KV, Maintenance and Cluster APIs through jetcd 0.7.7, on one server shared by the class. */
@ExtendWith(LogOnFailure.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JetcdKvTest {
  private static ServerProcess server;
  private static Client client;
  private static KV kv;

  @BeforeAll
  static void startServer() {
    server = Targets.underTest();
    try {
      server.start();
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
    client = Jetcd.client(server);
    kv = client.getKVClient();
  }

  @AfterAll
  static void stopServer() {
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

  /** A key prefix of its own for every test: the server is shared. */
  private static String ns(TestInfo info) {
    return "/" + info.getTestMethod().orElseThrow().getName() + "/";
  }

  private static long put(String k, String v) {
    return await(kv.put(bs(k), bs(v))).getHeader().getRevision();
  }

  private static List<String> keys(GetResponse r) {
    return r.getKvs().stream().map(x -> str(x.getKey())).toList();
  }

  @Test
  void putGetDeleteWithRevisions(TestInfo info) {
    String p = ns(info);
    long r1 = put(p + "a", "1");
    PutResponse second = await(kv.put(bs(p + "a"), bs("2"), PutOption.builder().withPrevKV().build()));
    long r2 = second.getHeader().getRevision();
    assertEquals(r1 + 1, r2);
    assertTrue(second.hasPrevKv());
    assertEquals("1", str(second.getPrevKv().getValue()));
    assertEquals(r1, second.getPrevKv().getModRevision());

    GetResponse got = await(kv.get(bs(p + "a")));
    assertEquals(r2, got.getHeader().getRevision());
    assertEquals(1, got.getCount());
    KeyValue x = got.getKvs().get(0);
    assertEquals("2", str(x.getValue()));
    assertEquals(r1, x.getCreateRevision());
    assertEquals(r2, x.getModRevision());
    assertEquals(2, x.getVersion());
    assertEquals(0, x.getLease());

    GetResponse old = await(kv.get(bs(p + "a"), GetOption.builder().withRevision(r1).build()));
    assertEquals("1", str(old.getKvs().get(0).getValue()));
    assertEquals(1, old.getKvs().get(0).getVersion());
    assertEquals(r2, old.getHeader().getRevision());

    DeleteResponse del = await(kv.delete(bs(p + "a"), DeleteOption.builder().withPrevKV(true).build()));
    assertEquals(1, del.getDeleted());
    assertEquals("2", str(del.getPrevKvs().get(0).getValue()));
    assertEquals(r2 + 1, del.getHeader().getRevision());
    assertEquals(0, await(kv.get(bs(p + "a"))).getCount());

    DeleteResponse none = await(kv.delete(bs(p + "a")));
    assertEquals(0, none.getDeleted());
    assertEquals(r2 + 1, none.getHeader().getRevision(), "deleting nothing makes no revision");

    long r3 = put(p + "a", "3");
    KeyValue again = await(kv.get(bs(p + "a"))).getKvs().get(0);
    assertEquals(r3, again.getCreateRevision());
    assertEquals(1, again.getVersion());
  }

  @Test
  void prefixLimitRangeAndSort(TestInfo info) {
    String p = ns(info);
    put(p + "b", "2");
    put(p + "a", "3");
    put(p + "c", "1");
    put(p + "a", "4");
    put(p.substring(0, p.length() - 1) + "0", "outside");

    GetResponse all = await(kv.get(bs(p), GetOption.builder().isPrefix(true).build()));
    assertEquals(List.of(p + "a", p + "b", p + "c"), keys(all));
    assertEquals(3, all.getCount());
    assertFalse(all.isMore());

    GetResponse limited = await(kv.get(bs(p), GetOption.builder().isPrefix(true).withLimit(2).build()));
    assertEquals(List.of(p + "a", p + "b"), keys(limited));
    assertEquals(3, limited.getCount());
    assertTrue(limited.isMore());

    GetResponse range = await(kv.get(bs(p + "a"), GetOption.builder().withRange(bs(p + "c")).build()));
    assertEquals(List.of(p + "a", p + "b"), keys(range));

    GetResponse byValue = await(kv.get(bs(p), GetOption.builder().isPrefix(true)
        .withSortField(SortTarget.VALUE).withSortOrder(SortOrder.ASCEND).build()));
    assertEquals(List.of(p + "c", p + "b", p + "a"), keys(byValue));

    GetResponse byKeyDesc = await(kv.get(bs(p), GetOption.builder().isPrefix(true)
        .withSortField(SortTarget.KEY).withSortOrder(SortOrder.DESCEND).build()));
    assertEquals(List.of(p + "c", p + "b", p + "a"), keys(byKeyDesc));

    GetResponse byMod = await(kv.get(bs(p), GetOption.builder().isPrefix(true)
        .withSortField(SortTarget.MOD).withSortOrder(SortOrder.DESCEND).withLimit(2).build()));
    assertEquals(List.of(p + "a", p + "c"), keys(byMod));
    assertEquals(3, byMod.getCount());

    GetResponse byCreate = await(kv.get(bs(p), GetOption.builder().isPrefix(true)
        .withSortField(SortTarget.CREATE).withSortOrder(SortOrder.ASCEND).build()));
    assertEquals(List.of(p + "b", p + "a", p + "c"), keys(byCreate));

    GetResponse byVersion = await(kv.get(bs(p), GetOption.builder().isPrefix(true)
        .withSortField(SortTarget.VERSION).withSortOrder(SortOrder.DESCEND).build()));
    assertEquals(p + "a", keys(byVersion).get(0));

    GetResponse keysOnly = await(kv.get(bs(p), GetOption.builder().isPrefix(true).withKeysOnly(true).build()));
    assertEquals(3, keysOnly.getKvs().size());
    keysOnly.getKvs().forEach(k -> assertTrue(k.getValue().isEmpty()));

    GetResponse count = await(kv.get(bs(p), GetOption.builder().isPrefix(true).withCountOnly(true).build()));
    assertEquals(3, count.getCount());
    assertTrue(count.getKvs().isEmpty());

    GetResponse serializable = await(kv.get(bs(p), GetOption.builder().isPrefix(true).withSerializable(true).build()));
    assertEquals(3, serializable.getCount());

    DeleteResponse del = await(kv.delete(bs(p), DeleteOption.builder().isPrefix(true).build()));
    assertEquals(3, del.getDeleted());
    assertEquals(1, await(kv.get(bs(p.substring(0, p.length() - 1) + "0"))).getCount());
  }

  @Test
  void txnBranches(TestInfo info) {
    String p = ns(info);
    long r = put(p + "k", "v1");
    TxnResponse ok = await(kv.txn()
        .If(new Cmp(bs(p + "k"), Cmp.Op.EQUAL, CmpTarget.value(bs("v1"))),
            new Cmp(bs(p + "k"), Cmp.Op.EQUAL, CmpTarget.version(1)),
            new Cmp(bs(p + "k"), Cmp.Op.EQUAL, CmpTarget.createRevision(r)),
            new Cmp(bs(p + "k"), Cmp.Op.LESS, CmpTarget.modRevision(r + 1)))
        .Then(Op.put(bs(p + "k"), bs("v2"), PutOption.DEFAULT),
            Op.get(bs(p + "k"), GetOption.DEFAULT),
            Op.put(bs(p + "other"), bs("x"), PutOption.DEFAULT))
        .Else(Op.put(bs(p + "else"), bs("x"), PutOption.DEFAULT))
        .commit());
    assertTrue(ok.isSucceeded());
    assertEquals(r + 1, ok.getHeader().getRevision(), "one revision for the whole txn");
    assertEquals(2, ok.getPutResponses().size());
    assertEquals("v2", str(ok.getGetResponses().get(0).getKvs().get(0).getValue()),
        "a get in a txn sees the txn's earlier puts");
    assertEquals(0, await(kv.get(bs(p + "else"))).getCount());

    TxnResponse no = await(kv.txn()
        .If(new Cmp(bs(p + "k"), Cmp.Op.GREATER, CmpTarget.version(5)))
        .Then(Op.put(bs(p + "then"), bs("x"), PutOption.DEFAULT))
        .Else(Op.delete(bs(p + "other"), DeleteOption.DEFAULT), Op.get(bs(p + "k"), GetOption.DEFAULT))
        .commit());
    assertFalse(no.isSucceeded());
    assertEquals(r + 2, no.getHeader().getRevision());
    assertEquals(1, no.getDeleteResponses().get(0).getDeleted());
    assertEquals(0, await(kv.get(bs(p + "then"))).getCount());

    TxnResponse readOnly = await(kv.txn()
        .If(new Cmp(bs(p + "missing"), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
        .Then(Op.get(bs(p), GetOption.builder().isPrefix(true).build()))
        .commit());
    assertTrue(readOnly.isSucceeded());
    assertEquals(r + 2, readOnly.getHeader().getRevision(), "a read-only txn makes no revision");
  }

  @Test
  void errorsCarryEtcdsText(TestInfo info) {
    String p = ns(info);
    assertStatus(Status.Code.INVALID_ARGUMENT, "etcdserver: key is not provided",
        failure(kv.put(ByteSequence.EMPTY, bs("v"))));
    assertStatus(Status.Code.INVALID_ARGUMENT, "etcdserver: key is not provided",
        failure(kv.get(ByteSequence.EMPTY)));
    assertStatus(Status.Code.INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request",
        failure(kv.txn().Then(Op.put(bs(p + "d"), bs("1"), PutOption.DEFAULT),
            Op.put(bs(p + "d"), bs("2"), PutOption.DEFAULT)).commit()));
    long now = put(p + "x", "1");
    assertStatus(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        failure(kv.get(bs(p + "x"), GetOption.builder().withRevision(now + 1000).build())));
    assertStatus(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        failure(kv.compact(now + 1000)));
    assertStatus(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        failure(kv.txn().Then(Op.get(bs(p + "x"), GetOption.builder().withRevision(now + 1000).build()))
            .commit()));
  }

  @Test
  void compaction(TestInfo info) {
    String p = ns(info);
    long r1 = put(p + "c", "1");
    long r2 = put(p + "c", "2");
    long r3 = put(p + "c", "3");
    await(kv.compact(r2, CompactOption.builder().withCompactPhysical(true).build()));
    assertStatus(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
        failure(kv.get(bs(p + "c"), GetOption.builder().withRevision(r1).build())));
    assertStatus(Status.Code.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted",
        failure(kv.compact(r2)));
    assertEquals("2", str(await(kv.get(bs(p + "c"), GetOption.builder().withRevision(r2).build()))
        .getKvs().get(0).getValue()));
    assertEquals("3", str(await(kv.get(bs(p + "c"))).getKvs().get(0).getValue()));
    assertEquals(r3, await(kv.get(bs(p + "c"))).getKvs().get(0).getModRevision());
    assertEquals(r1, await(kv.get(bs(p + "c"))).getKvs().get(0).getCreateRevision(),
        "compaction keeps the live key's history fields");
    assertEquals(3, await(kv.get(bs(p + "c"))).getKvs().get(0).getVersion());
  }

  @Test
  void concurrentClientsGetDistinctRevisions(TestInfo info) throws Exception {
    String p = ns(info);
    int clients = 6;
    int perClient = 40;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    Map<String, Long> revisions = new ConcurrentHashMap<>();
    List<Client> opened = new ArrayList<>();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Client own = Jetcd.client(server);
        opened.add(own);
        int id = c;
        done.add(pool.submit(() -> {
          KV okv = own.getKVClient();
          List<CompletableFuture<PutResponse>> inFlight = new ArrayList<>();
          for (int i = 0; i < perClient; i++) {
            inFlight.add(okv.put(bs(p + id + "/" + i), bs(id + ":" + i)));
          }
          for (int i = 0; i < perClient; i++) {
            revisions.put(p + id + "/" + i, await(inFlight.get(i)).getHeader().getRevision());
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      opened.forEach(Client::close);
    }
    assertEquals(clients * perClient, revisions.size());
    Set<Long> distinct = new HashSet<>(revisions.values());
    assertEquals(clients * perClient, distinct.size(), "every put has its own revision");
    GetResponse all = await(kv.get(bs(p), GetOption.builder().isPrefix(true).build()));
    assertEquals(clients * perClient, all.getCount());
    Map<String, KeyValue> byKey = new HashMap<>();
    all.getKvs().forEach(x -> byKey.put(str(x.getKey()), x));
    for (Map.Entry<String, Long> e : revisions.entrySet()) {
      KeyValue x = byKey.get(e.getKey());
      String[] parts = e.getKey().substring(p.length()).split("/");
      assertEquals(parts[0] + ":" + parts[1], str(x.getValue()));
      assertEquals(e.getValue(), x.getModRevision(), "acknowledged revision of " + e.getKey());
    }
    long max = distinct.stream().mapToLong(Long::longValue).max().orElseThrow();
    long min = distinct.stream().mapToLong(Long::longValue).min().orElseThrow();
    assertEquals(clients * perClient - 1, max - min, "no gaps: nothing else writes under this prefix");
  }

  @Test
  void statusAndMembers() {
    StatusResponse status = await(client.getMaintenanceClient().statusMember(server.clientUrl()));
    assertTrue(status.getVersion().startsWith("3."), status.getVersion());
    assertNotEquals(0, status.getHeader().getMemberId());
    assertEquals(status.getHeader().getMemberId(), status.getLeader(), "a single member leads");
    assertTrue(status.getRaftIndex() > 0);
    assertTrue(status.getRaftTerm() > 0);
    assertTrue(status.getDbSize() > 0);

    List<Member> members = await(client.getClusterClient().listMember()).getMembers();
    assertEquals(1, members.size());
    Member m = members.get(0);
    assertEquals("it", m.getName());
    assertEquals(status.getHeader().getMemberId(), m.getId());
    assertEquals(List.of(URI.create(server.clientUrl())), m.getClientURIs());
    assertEquals(1, m.getPeerURIs().size());
    assertFalse(m.isLearner());
  }

  @Test
  @Order(Integer.MAX_VALUE)
  void hashKvStableAcrossRestart(TestInfo info) {
    String p = ns(info);
    for (int i = 0; i < 20; i++) {
      put(p + (i % 7), "v" + i);
    }
    await(kv.delete(bs(p + "3")));
    long rev = put(p + "last", "x");
    await(kv.compact(rev - 10));
    String url = server.clientUrl();
    HashKVResponse before = await(client.getMaintenanceClient().hashKV(url, 0));
    HashKVResponse beforeAtRev = await(client.getMaintenanceClient().hashKV(url, rev - 5));
    assertEquals(rev, before.getHeader().getRevision());
    assertEquals(before.getHash(), await(client.getMaintenanceClient().hashKV(url, 0)).getHash(),
        "hashKV is stable without writes");

    client.close();
    client = null;
    server.restart();
    client = Jetcd.client(server);
    kv = client.getKVClient();

    HashKVResponse after = await(client.getMaintenanceClient().hashKV(url, 0));
    assertEquals(rev, after.getHeader().getRevision());
    assertEquals(before.getHash(), after.getHash(), "hashKV of the latest revision after restart");
    assertEquals(beforeAtRev.getHash(), await(client.getMaintenanceClient().hashKV(url, rev - 5)).getHash(),
        "hashKV of an older revision after restart");
    assertEquals(rev + 1, put(p + "after", "y"));
  }

  private static void assertStatus(Status.Code code, String description, Status actual) {
    assertEquals(code, actual.getCode(), "status code; description: " + actual.getDescription());
    assertEquals(description, actual.getDescription());
  }
}
