package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Snapshots between members (Raft §7): with --snapshot-count 100 the members keep only the last
 * 100 applied entries in their logs, so a follower that was down during 3,000 writes, and a member
 * added afterwards, cannot be caught up from the leader's log: each is sent the leader's state
 * machine (the MVCC store, the leases, the membership) and goes on from there. Both end with the
 * same HashKV as the others, serve what was written meanwhile (keys, deletes, a lease, the
 * compaction) from their own store, and the follower restarts cleanly from its restarted log.
 */
class ClusterSnapshotTest {
  private static final String RESTORED = "restored its log from a snapshot";

  @Test
  void laggingAndNewMembersCatchUpFromSnapshots() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3,
        List.of("--snapshot-count", "100"));
    List<ServerProcess> all = new ArrayList<>(members);
    try {
      ServerProcess leader = ServerProcess.leader(members);
      ServerProcess lagging = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
      List<ServerProcess> up = members.stream().filter(m -> m != lagging).toList();
      // Cut off before it dies: Artery delivers what waits in its queue for a dead member to the
      // member's next incarnation on the same address, and the leader's appends of the writes
      // below would catch it up without a snapshot. It says it has no leader after an election
      // timeout, long after every member re-read its cut links (every 50 ms).
      lagging.cutOff(up.stream().map(ServerProcess::name).collect(java.util.stream.Collectors.toSet()));
      up.forEach(m -> m.cutOff(java.util.Set.of(lagging.name())));
      lagging.awaitNoLeader();
      lagging.kill();

      long lease;
      long compactedAt;
      try (Client client = Client.builder().endpoints(up.stream().map(ServerProcess::clientUrl)
          .toArray(String[]::new)).build()) {
        lease = client.getLeaseClient().grant(600).get(10, TimeUnit.SECONDS).getID();
        client.getKVClient().put(bytes("leased"), bytes("x"), PutOption.builder().withLeaseId(lease).build())
            .get(10, TimeUnit.SECONDS);
        for (int batch = 0; batch < 60; batch++) {
          List<CompletableFuture<?>> puts = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            int n = batch * 50 + i;
            puts.add(client.getKVClient().put(bytes(String.format("k/%05d", n)), bytes("v" + n)));
          }
          CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
        client.getKVClient().delete(bytes("k/000"), DeleteOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS); // k/00000 .. k/00099
        compactedAt = client.getKVClient().get(bytes("k/01000")).get(10, TimeUnit.SECONDS).getHeader().getRevision() - 500;
        client.getKVClient().compact(compactedAt).get(10, TimeUnit.SECONDS);
      }

      // The follower comes back far behind the leader's log: it gets the leader's store.
      members.forEach(m -> m.cutOff(java.util.Set.of()));
      lagging.start();
      ServerProcess.awaitConverged(members);
      lagging.awaitLogged(RESTORED, java.time.Duration.ofSeconds(10));
      assertServesWhatWasWritten(lagging, lease, compactedAt);

      // Its log starts after the snapshot now, in its journal too: a kill -9 and restart recover.
      lagging.kill();
      lagging.start();
      ServerProcess.awaitConverged(members);
      assertServesWhatWasWritten(lagging, lease, compactedAt);

      // A member added now needs the whole history, which no log holds any more.
      String endpoints = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      ServerProcess joiner = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m4", members,
          List.of("--snapshot-count", "100"));
      all.add(joiner);
      Etcdctl.Result added = ServerProcess.reconfigure(endpoints, "member", "add", "m4", "--peer-urls=" + joiner.peerUrl());
      assertEquals(0, added.exit(), added.all());
      joiner.start();
      ServerProcess.awaitConverged(all);
      joiner.awaitLogged(RESTORED, java.time.Duration.ofSeconds(10));
      assertServesWhatWasWritten(joiner, lease, compactedAt);
      Etcdctl.Result list = Etcdctl.run(joiner.endpoint(), "member", "list");
      for (ServerProcess m : all) {
        assertTrue(list.stdout().contains(m.name() + ", " + m.peerUrl()), "member list on the new member:\n" + list.all());
      }
    } finally {
      all.forEach(ServerProcess::close);
    }
  }

  /** Read from the member's own store (serializable): keys, the delete, the lease, the compaction. */
  private static void assertServesWhatWasWritten(ServerProcess m, long lease, long compactedAt) {
    Etcdctl.Result count = Etcdctl.run(m.endpoint(), "get", "k/", "--prefix", "--limit=1",
        "--consistency=s", "-w", "json");
    assertTrue(count.stdout().contains("\"count\":2900"), "2,900 keys on " + m.name() + ":\n" + count.all());
    Etcdctl.Result last = Etcdctl.run(m.endpoint(), "get", "k/02999", "--print-value-only", "--consistency=s");
    assertEquals("v2999", last.stdout().trim(), last.all());
    Etcdctl.Result leases = Etcdctl.run(m.endpoint(), "lease", "list");
    assertTrue(leases.stdout().contains(Long.toHexString(lease)), "the lease on " + m.name() + ":\n" + leases.all());
    Etcdctl.Result keys = Etcdctl.run(m.endpoint(), "lease", "timetolive", Long.toHexString(lease), "--keys");
    assertTrue(keys.stdout().contains("leased"), "the lease's key on " + m.name() + ":\n" + keys.all());
    Etcdctl.Result old = Etcdctl.run(m.endpoint(), "get", "k/01000", "--rev=" + (compactedAt - 1), "--consistency=s");
    assertTrue(old.stderr().contains("required revision has been compacted"),
        "the compaction on " + m.name() + ":\n" + old.all());
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
