package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A member started alone grows into a cluster, as with etcd: `member add` on it is answered, it
 * restarts itself (in its process) with the peer transport it did not need alone, and once the new
 * member starts, the two serve together and converge. Its history reaches the new member by a
 * snapshot, since a lone member trims its log.
 */
class ClusterGrowTest {

  @Test
  void aLoneMemberAddsASecondOne() throws Exception {
    ServerProcess first = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of("--snapshot-count", "100"));
    List<ServerProcess> all = new ArrayList<>(List.of(first));
    try {
      long pid = first.pid();
      // More than the store syncs between log compactions (1,000 entries): the log is trimmed.
      try (Client client = Client.builder().endpoints(first.clientUrl()).build()) {
        for (int batch = 0; batch < 30; batch++) {
          List<CompletableFuture<?>> puts = new ArrayList<>();
          for (int i = batch * 50; i < batch * 50 + 50; i++) {
            puts.add(client.getKVClient().put(bytes("k" + i), bytes("v" + i)));
          }
          CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
      }
      ServerProcess second = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m2", List.of(first),
          List.of("--snapshot-count", "100"));
      all.add(second);
      Etcdctl.Result added = ServerProcess.reconfigure(first.endpoint(), "member", "add", "m2",
          "--peer-urls=" + second.peerUrl());
      assertEquals(0, added.exit(), added.all());
      assertTrue(added.stdout().contains("ETCD_INITIAL_CLUSTER_STATE=\"existing\""), added.all());
      // Until m2 starts, one of two voters has started: a third voter would leave one started of
      // three, and a learner needs every voter connected. etcd 3.4 answers both so.
      String another = "--peer-urls=http://127.0.0.1:" + Ports.free();
      assertRefused(first, "etcdserver: re-configuration failed due to not enough started members",
          "member", "add", "m3", another);
      assertRefused(first, "etcdserver: unhealthy cluster", "member", "add", "m3", "--learner", another);
      second.start(); // healthy once the two have a leader
      ServerProcess.awaitConverged(all);
      assertEquals("v1499", Etcdctl.run(second.endpoint(), "get", "k1499", "--print-value-only").stdout().trim());
      second.awaitLogged("restored its log from a snapshot", java.time.Duration.ofSeconds(10));
      assertEquals(0, Etcdctl.run(second.endpoint(), "put", "both", "yes").exit());
      assertEquals("yes", Etcdctl.run(first.endpoint(), "get", "both", "--print-value-only").stdout().trim());
      assertTrue(first.alive() && first.pid() == pid, "the first member restarted inside its process");
    } finally {
      all.forEach(ServerProcess::close);
    }
  }

  /**
   * The member refuses the command with {@code error}. It restarts itself as a cluster member just
   * after the first MemberAdd, so a command may meet it restarting: asked again until answered.
   */
  private static void assertRefused(ServerProcess m, String error, String... command) {
    java.time.Instant deadline = java.time.Instant.now().plusSeconds(30);
    Etcdctl.Result r;
    do {
      r = Etcdctl.run(m.endpoint(), command);
    } while (!r.stderr().contains("etcdserver:") && java.time.Instant.now().isBefore(deadline));
    assertEquals(1, r.exit(), r.all());
    assertTrue(r.stderr().contains("Error: " + error + "\n"), r.all());
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
