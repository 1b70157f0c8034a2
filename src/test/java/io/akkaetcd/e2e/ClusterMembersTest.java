package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A three-member cluster through etcdctl: every member lists every member with the client URLs
 * it published; {@code etcdctl move-leader} hands leadership over; {@code member add} lets a
 * fourth member join with --initial-cluster-state existing and catch up; {@code member remove}
 * of the leader stops it while the rest go on; {@code member update} moves a member to a new peer
 * URL; with etcd's output and errors.
 */
class ClusterMembersTest {

  @Test
  void memberListMoveLeaderMemberAddAndRemove() {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    ServerProcess joined = null;
    try {
      String all = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      // Each member publishes its client URLs through Raft once it runs: soon every member lists all.
      for (ServerProcess m : members) {
        awaitListed(m, members);
      }

      ServerProcess leader = ServerProcess.leader(members);
      ServerProcess target = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
      String from = leader.memberIdHex();
      String to = target.memberIdHex();
      Etcdctl.Result moved = Etcdctl.run(all, "move-leader", to);
      assertEquals(0, moved.exit(), moved.all());
      assertEquals("Leadership transferred from " + from + " to " + to + "\n", moved.stdout());
      assertEquals(target, ServerProcess.leader(members));
      Etcdctl.Result put = Etcdctl.run(all, "put", "after-move", "ok");
      assertEquals("OK\n", put.stdout(), put.all());

      Etcdctl.Result bad = Etcdctl.run(all, "move-leader", "1234abcd");
      assertEquals(1, bad.exit(), bad.all());
      assertTrue(bad.stderr().contains("etcdserver: bad leader transferee"), bad.all());

      // MemberAdd, then the new member joins with --initial-cluster-state existing and catches up.
      ServerProcess joiner = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m4", members, List.of());
      joined = joiner;
      Etcdctl.Result added = ServerProcess.reconfigure(all, "member", "add", "m4", "--peer-urls=" + joiner.peerUrl());
      assertEquals(0, added.exit(), added.all());
      assertTrue(added.stdout().contains("ETCD_INITIAL_CLUSTER_STATE=\"existing\""), added.all());
      assertTrue(added.stdout().contains("m4=" + joiner.peerUrl()), added.all());
      joiner.start();
      List<ServerProcess> four = new java.util.ArrayList<>(members);
      four.add(joiner);
      ServerProcess.awaitConverged(four);
      for (ServerProcess m : four) {
        awaitListed(m, four);
      }
      // etcd lists members by id (unsigned), whatever order they came in
      List<Long> listed = Etcdctl.run(all, "member", "list").stdout().lines()
          .map(l -> Long.parseUnsignedLong(l.substring(0, l.indexOf(',')), 16)).toList();
      List<Long> byId = new java.util.ArrayList<>(listed);
      byId.sort(Long::compareUnsigned);
      assertEquals(byId, listed);
      assertEquals(4, listed.size());
      // The strict check comes first: until every voter has heard m4 for 5 s, "unhealthy cluster".
      Etcdctl.Result dup = ServerProcess.reconfigure(all, "member", "add", "again", "--peer-urls=" + joiner.peerUrl());
      assertTrue(dup.stderr().contains("etcdserver: Peer URLs already exists"), dup.all());

      // MemberRemove of the leader: it steps down and stops; the other three go on.
      ServerProcess removed = ServerProcess.leader(four);
      Etcdctl.Result gone = ServerProcess.reconfigure(all + "," + joiner.endpoint(), "member", "remove",
          removed.memberIdHex());
      assertEquals(0, gone.exit(), gone.all());
      assertTrue(removed.awaitExit(), removed.name() + " still runs after its removal");
      List<ServerProcess> rest = four.stream().filter(m -> m != removed).toList();
      String restEndpoints = String.join(",", rest.stream().map(ServerProcess::endpoint).toList());
      ServerProcess.leader(rest); // the removed leader stepped down: an election first
      Etcdctl.Result afterRemove = Etcdctl.run(restEndpoints, "put", "after-remove", "ok");
      assertEquals("OK\n", afterRemove.stdout(), afterRemove.all());
      ServerProcess.awaitConverged(rest);
      for (ServerProcess m : rest) {
        awaitListed(m, rest);
      }
      Etcdctl.Result unknown = Etcdctl.run(restEndpoints, "member", "remove", "1234");
      assertTrue(unknown.stderr().contains("etcdserver: member not found"), unknown.all());

      // etcd's strict reconfiguration check: with one of three down, adding a fourth would leave
      // two running of four voters, and removing a running one would leave one of two: refused
      // as etcd 3.4 refuses them, "unhealthy cluster" (all three have started, so not "not enough
      // started members"). The probe adds a member with an existing peer URL, which is refused
      // either way (the check comes first, as in etcd), until the member's link has gone quiet.
      ServerProcess down = rest.get(0);
      ServerProcess asked = rest.get(1);
      down.kill();
      Instant until = Instant.now().plus(Duration.ofSeconds(30));
      Etcdctl.Result refused;
      do {
        refused = Etcdctl.run(asked.endpoint(), "member", "add", "m5", "--peer-urls=" + asked.peerUrl());
      } while (!refused.stderr().contains("unhealthy cluster") && Instant.now().isBefore(until));
      assertTrue(refused.stderr().contains("Error: etcdserver: unhealthy cluster\n"), refused.all());
      Etcdctl.Result removeRefused = Etcdctl.run(asked.endpoint(), "member", "remove", asked.memberIdHex());
      assertTrue(removeRefused.stderr().contains("Error: etcdserver: unhealthy cluster\n"), removeRefused.all());
      down.start();

      // MemberUpdate: a follower moves to a new peer port; restarted there, it rejoins.
      ServerProcess moving = rest.stream().filter(m -> m != ServerProcess.leader(rest)).findFirst().orElseThrow();
      String movingId = moving.memberIdHex();
      moving.stop();
      String newPeerUrl = moving.movePeerPort();
      String others = String.join(",", rest.stream().filter(m -> m != moving).map(ServerProcess::endpoint).toList());
      Etcdctl.Result updated = Etcdctl.run(others, "member", "update", movingId, "--peer-urls=" + newPeerUrl);
      assertEquals(0, updated.exit(), updated.all());
      moving.start();
      Etcdctl.Result afterUpdate = Etcdctl.run(restEndpoints, "put", "after-update", "ok");
      assertEquals("OK\n", afterUpdate.stdout(), afterUpdate.all());
      ServerProcess.awaitConverged(rest);
      assertTrue(Etcdctl.run(moving.endpoint(), "member", "list").stdout().contains(newPeerUrl));

      // Quorum lost (two of three killed, the leader among them): the survivor fails writes and
      // linearizable reads with "etcdserver: no leader" once it knows it has none, and still
      // serves serializable reads from its own store.
      ServerProcess lastLeader = ServerProcess.leader(rest);
      ServerProcess survivor = rest.stream().filter(m -> m != lastLeader).findFirst().orElseThrow();
      rest.stream().filter(m -> m != survivor).forEach(ServerProcess::kill);
      Etcdctl.Result noLeaderRead = Etcdctl.run(survivor.endpoint(), "get", "after-update");
      assertTrue(noLeaderRead.stderr().contains("etcdserver: no leader"), noLeaderRead.all());
      Etcdctl.Result noLeaderWrite = Etcdctl.run(survivor.endpoint(), "put", "lost", "x");
      assertTrue(noLeaderWrite.stderr().contains("etcdserver: no leader"), noLeaderWrite.all());
      Etcdctl.Result local = Etcdctl.run(survivor.endpoint(), "get", "after-update", "--consistency=s");
      assertEquals("after-update\nok\n", local.stdout(), local.all());
    } finally {
      members.forEach(ServerProcess::close);
      if (joined != null) {
        joined.close();
      }
    }
  }

  /**
   * A member that died is removed: the others down it in Akka Cluster too (the transport), so a
   * later stop of one of them leaves that cluster at once. Before, the dead member stayed
   * unreachable for good, no leave could converge, and every stop waited out Akka's
   * cluster-exiting phase (10 s) and said so in its log.
   */
  @Test
  void aRemovedDeadMemberDoesNotHoldUpTheOthersStop() {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of("-J-Dakka-etcd.akka-log-level=INFO"));
    try {
      for (ServerProcess m : members) {
        awaitListed(m, members);
      }
      ServerProcess leader = ServerProcess.leader(members);
      ServerProcess dead = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
      String deadId = dead.memberIdHex();
      // Raft needs no Akka Cluster membership; the fault needs all three to have been Up in it
      awaitEachLoggedBySome(members, members.stream().map(m -> "Leader is moving node [akka://akka-etcd@"
          + URI.create(m.peerUrl()).getAuthority() + "] to [Up]").toList());
      dead.kill();
      List<ServerProcess> rest = members.stream().filter(m -> m != dead).toList();
      String endpoints = String.join(",", rest.stream().map(ServerProcess::endpoint).toList());
      Etcdctl.Result removed = ServerProcess.reconfigure(endpoints, "member", "remove", deadId);
      assertEquals(0, removed.exit(), removed.all());
      // whichever survivor finds it unreachable first downs it; the other then sees it gone
      awaitEachLoggedBySome(rest, List.of("downs removed member " + deadId));
      ServerProcess stopping = rest.get(0);
      stopping.stop();
      assertTrue(stopping.log().contains("stopped; store closed"), stopping.log());
      assertTrue(!stopping.log().contains("phase [cluster-exiting] timed out"), stopping.log());
      Etcdctl.Result status = Etcdctl.run(rest.get(1).endpoint(), "endpoint", "status");
      assertEquals(0, status.exit(), status.all());
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  /**
   * Waits, within 60 s, until each of {@code lines} is in the log of one of {@code members}: Akka
   * Cluster's leader may change while members join (the lowest address leads), so different
   * members may log the moves to Up.
   */
  private static void awaitEachLoggedBySome(List<ServerProcess> members, List<String> lines) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (!lines.stream().allMatch(line -> members.stream().anyMatch(m -> m.log().contains(line)))) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not every one of " + lines + " was logged within 60 s:\n"
            + String.join("\n", members.stream().map(ServerProcess::log).toList()));
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // polling the files, bounded by the deadline
    }
  }

  private static void awaitListed(ServerProcess asked, List<ServerProcess> members) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    String out = "";
    while (Instant.now().isBefore(deadline)) {
      out = Etcdctl.run(asked.endpoint(), "member", "list").stdout();
      String listed = out;
      if (listed.lines().count() == members.size()
          && members.stream().allMatch(m -> listed.contains(m.name() + ", http://127.0.0.1:")
          && listed.contains(", " + m.clientUrl() + ", false"))) {
        return;
      }
    }
    throw new AssertionError(asked.name() + " does not list exactly " + members.stream().map(ServerProcess::name)
        .toList() + " with their client URLs:\n" + out);
  }
}
