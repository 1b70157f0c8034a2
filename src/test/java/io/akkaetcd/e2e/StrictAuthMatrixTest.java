package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code --experimental-strict-auth-matrix}: etcd 3.5.28's stricter checks, off by default. With
 * auth on, the same etcdctl commands by a non-root user (alice) and by no user are allowed by
 * default (etcd 3.4: Compact, Alarm, Status, MemberList and the lease RPCs are unchecked) and
 * refused with the flag (root only; a user required), while root may still do all of them.
 * Likewise alice's keep-alive of a lease holding a key she may not write, and her txns that
 * write or read such a key in a nested txn: allowed by default (3.4 checks neither), denied with
 * the flag.
 */
class StrictAuthMatrixTest {
  private static final String ALICE = "--user=alice:apw";
  private static final String ROOT = "--user=root:pw";
  private static final String DENIED = "etcdserver: permission denied";
  private static final Pattern GRANTED = Pattern.compile("lease ([0-9a-f]+) granted");

  /** The commands, each by the user given (null: none), and the error the strict matrix gives. */
  private static Map<List<String>, String> commands() {
    Map<List<String>, String> c = new LinkedHashMap<>();
    c.put(List.of(ALICE, "endpoint", "status"), "etcdserver: permission denied");
    c.put(List.of(ALICE, "member", "list"), "etcdserver: permission denied");
    c.put(List.of(ALICE, "alarm", "list"), "etcdserver: permission denied");
    c.put(List.of(ALICE, "compaction", "1"), "etcdserver: permission denied");
    c.put(List.of("lease", "grant", "60"), "etcdserver: user name is empty");
    c.put(List.of("lease", "list"), "etcdserver: user name is empty");
    c.put(List.of("lease", "timetolive", "1234"), "etcdserver: user name is empty");
    c.put(List.of("lease", "revoke", "1234"), "etcdserver: user name is empty");
    return c;
  }

  @Test
  void offByDefaultAs34() throws Exception {
    try (ServerProcess s = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      AuthSetup.enable(s.endpoint());
      for (List<String> cmd : commands().keySet()) {
        Etcdctl.Result r = Etcdctl.run(s.endpoint(), null, cmd);
        if (cmd.contains("revoke")) {
          assertTrue(r.stderr().contains("requested lease not found"), cmd + ":\n" + r.all());
        } else {
          assertEquals(0, r.exit(), cmd + ":\n" + r.all());
        }
      }
      String foreign = leaseWithKey(s, ROOT, "b/leased");
      Etcdctl.Result kept = Etcdctl.run(s.endpoint(), ALICE, "lease", "keep-alive", "--once", foreign);
      assertTrue(kept.exit() == 0 && kept.stdout().contains("keepalived with TTL(60)"), kept.all());
      try (Client alice = alice(s)) {
        assertTrue(!nestedPut(alice, "b/nested").get(30, TimeUnit.SECONDS).isSucceeded());
        assertEquals(1, nestedGet(alice, "b/").get(30, TimeUnit.SECONDS).getTxnResponses().size());
      }
      Etcdctl.Result written = Etcdctl.run(s.endpoint(), ROOT, "get", "b/nested", "--print-value-only");
      assertEquals("v\n", written.stdout(), written.all());
    }
  }

  @Test
  void strictMatrixRefusesWhat35Refuses() throws Exception {
    try (ServerProcess s = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD,
        List.of("--experimental-strict-auth-matrix"))) {
      AuthSetup.enable(s.endpoint());
      for (Map.Entry<List<String>, String> c : commands().entrySet()) {
        Etcdctl.Result r = Etcdctl.run(s.endpoint(), null, c.getKey());
        assertTrue(r.exit() != 0 && r.stderr().contains(c.getValue()), c.getKey() + ":\n" + r.all());
      }
      // root may, and a user may use leases
      for (List<String> cmd : List.of(List.of(ROOT, "endpoint", "status"), List.of(ROOT, "member", "list"),
          List.of(ROOT, "alarm", "list"), List.of(ROOT, "compaction", "1"), List.of(ALICE, "lease", "grant", "60"),
          List.of(ALICE, "lease", "list"), List.of(ALICE, "lease", "timetolive", "1234"))) {
        Etcdctl.Result r = Etcdctl.run(s.endpoint(), null, cmd);
        assertEquals(0, r.exit(), cmd + ":\n" + r.all());
      }
      // KeepAlive: WRITE on the lease's keys, checked on every request of the stream
      String foreign = leaseWithKey(s, ROOT, "b/leased");
      Etcdctl.Result denied = Etcdctl.run(s.endpoint(), ALICE, "lease", "keep-alive", "--once", foreign);
      assertTrue(denied.exit() != 0 && denied.stderr().contains(DENIED), denied.all());
      String own = leaseWithKey(s, ALICE, "a/leased");
      Etcdctl.Result kept = Etcdctl.run(s.endpoint(), ALICE, "lease", "keep-alive", "--once", own);
      assertTrue(kept.exit() == 0 && kept.stdout().contains("keepalived with TTL(60)"), kept.all());
      Etcdctl.Result byRoot = Etcdctl.run(s.endpoint(), ROOT, "lease", "keep-alive", "--once", foreign);
      assertEquals(0, byRoot.exit(), byRoot.all());
      // nested txns: checked as the top level is, in both branches
      try (Client alice = alice(s)) {
        assertDenied(nestedPut(alice, "b/nested"));
        assertDenied(nestedGet(alice, "b/"));
        nestedPut(alice, "a/nested").get(30, TimeUnit.SECONDS);
      }
      Etcdctl.Result written = Etcdctl.run(s.endpoint(), ROOT, "get", "a/nested", "--print-value-only");
      assertEquals("v\n", written.stdout(), written.all());
      Etcdctl.Result refused = Etcdctl.run(s.endpoint(), ROOT, "get", "b/nested");
      assertEquals("", refused.stdout(), refused.all());
    }
  }

  /** A lease of 60 s granted by {@code user}, with {@code key} put on it by that user: its id in hex. */
  private static String leaseWithKey(ServerProcess s, String user, String key) {
    Etcdctl.Result grant = Etcdctl.run(s.endpoint(), user, "lease", "grant", "60");
    Matcher id = GRANTED.matcher(grant.stdout());
    assertTrue(grant.exit() == 0 && id.find(), grant.all());
    Etcdctl.Result put = Etcdctl.run(s.endpoint(), user, "put", "--lease=" + id.group(1), key, "v");
    assertEquals(0, put.exit(), put.all());
    return id.group(1);
  }

  private static Client alice(ServerProcess s) {
    return Client.builder().endpoints(s.clientUrl()).user(bytes("alice")).password(bytes("apw")).build();
  }

  /** A txn alice may run at its top level (a compare on a/), putting {@code key} in a nested txn of its failure branch. */
  private static java.util.concurrent.CompletableFuture<io.etcd.jetcd.kv.TxnResponse> nestedPut(Client c, String key) {
    Op nested = Op.txn(new Cmp[0], new Op[] {Op.put(bytes(key), bytes("v"), PutOption.DEFAULT)}, new Op[0]);
    return c.getKVClient().txn().If(new Cmp(bytes("a/none"), Cmp.Op.EQUAL, io.etcd.jetcd.op.CmpTarget.version(1)))
        .Else(nested).commit();
  }

  /** A read-only txn whose nested txn reads the prefix {@code prefix}. */
  private static java.util.concurrent.CompletableFuture<io.etcd.jetcd.kv.TxnResponse> nestedGet(Client c, String prefix) {
    Op nested = Op.txn(new Cmp[0], new Op[] {Op.get(bytes(prefix), GetOption.newBuilder().isPrefix(true).build())},
        new Op[0]);
    return c.getKVClient().txn().Then(nested).commit();
  }

  private static void assertDenied(java.util.concurrent.CompletableFuture<?> call) {
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> call.get(30, TimeUnit.SECONDS));
    assertTrue(String.valueOf(e.getCause().getMessage()).contains(DENIED), String.valueOf(e.getCause()));
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
