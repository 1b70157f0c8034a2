package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Learners, driven by etcdctl on a three-member cluster: a learner is added with etcd's output,
 * catches up, is listed as a learner, serves serializable reads and refuses everything else with
 * etcd's error; a second learner is refused; a learner that fell behind cannot be promoted, and
 * once caught up it is promoted through a follower (which asks the leader) and serves as a voter.
 */
class ClusterLearnerTest {

  @Test
  void learnersCatchUpServeSerializableReadsAndArePromoted() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    List<ServerProcess> all = new ArrayList<>(members);
    try {
      String endpoints = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      assertEquals(0, Etcdctl.run(endpoints, "put", "before", "1").exit());

      ServerProcess learner = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m4", members, List.of());
      all.add(learner);
      Etcdctl.Result added = ServerProcess.reconfigure(endpoints, "member", "add", "m4", "--learner",
          "--peer-urls=" + learner.peerUrl());
      assertEquals(0, added.exit(), added.all());
      assertTrue(added.stdout().contains("ETCD_INITIAL_CLUSTER_STATE=\"existing\""), added.all());
      learner.startLearner();
      String id = learner.memberIdHex();

      // Listed as a learner.
      Etcdctl.Result list = Etcdctl.run(endpoints, "member", "list");
      assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith(id) && l.endsWith(", true")), list.all());
      // It catches up and serves serializable reads; linearizable reads and writes are refused.
      awaitValue(learner, "before", "1");
      Etcdctl.Result put = Etcdctl.run(learner.endpoint(), "put", "k", "v");
      assertTrue(put.stderr().contains("etcdserver: rpc not supported for learner"), put.all());
      Etcdctl.Result read = Etcdctl.run(learner.endpoint(), "get", "before");
      assertTrue(read.stderr().contains("etcdserver: rpc not supported for learner"), read.all());
      Etcdctl.Result listed = Etcdctl.run(learner.endpoint(), "member", "list");
      assertTrue(listed.stderr().contains("etcdserver: rpc not supported for learner"), listed.all());

      // etcd's rules: one learner at most; only learners are promoted; unknown members are not found.
      Etcdctl.Result second = Etcdctl.run(endpoints, "member", "add", "m5", "--learner",
          "--peer-urls=http://127.0.0.1:" + Ports.free());
      assertTrue(second.stderr().contains("etcdserver: too many learner members in cluster"), second.all());
      Etcdctl.Result voter = Etcdctl.run(endpoints, "member", "promote", members.get(0).memberIdHex());
      assertTrue(voter.stderr().contains("etcdserver: can only promote a learner member"), voter.all());
      Etcdctl.Result unknown = Etcdctl.run(endpoints, "member", "promote", "1234");
      assertTrue(unknown.stderr().contains("etcdserver: member not found"), unknown.all());

      // A learner that is behind the leader is not promoted.
      learner.kill();
      ServerProcess leader = ServerProcess.leader(members);
      for (int i = 0; i < 100; i++) {
        assertEquals(0, Etcdctl.run(leader.endpoint(), "put", "behind-" + i, "x").exit());
      }
      Etcdctl.Result early = Etcdctl.run(leader.endpoint(), "member", "promote", id);
      assertTrue(early.stderr().contains("etcdserver: can only promote a learner member which is in sync with leader"),
          early.all());

      // Back and caught up, it is promoted through a follower, which forwards to the leader.
      learner.startLearner();
      awaitValue(learner, "behind-99", "x");
      Etcdctl.Result afterRestart = Etcdctl.run(learner.endpoint(), "put", "k", "v");
      assertTrue(afterRestart.stderr().contains("etcdserver: rpc not supported for learner"),
          "still a learner after its restart: " + afterRestart.all());
      ServerProcess follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
      Etcdctl.Result promoted = promote(follower, id);
      assertTrue(promoted.stdout().contains("promoted in cluster"), promoted.all());
      list = Etcdctl.run(follower.endpoint(), "member", "list");
      assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith(id) && l.endsWith(", false")), list.all());
      assertEquals(0, putOnceVoter(learner).exit(), "a voter takes writes");
      ServerProcess.awaitConverged(all);
    } finally {
      all.forEach(ServerProcess::close);
    }
  }

  /** A put on the promoted member, retried while it has not yet applied its own promotion. */
  private static Etcdctl.Result putOnceVoter(ServerProcess member) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (true) {
      Etcdctl.Result r = Etcdctl.run(member.endpoint(), "put", "from-m4", "voter");
      if (r.exit() == 0 || !r.stderr().contains("rpc not supported for learner") || Instant.now().isAfter(deadline)) {
        return r;
      }
    }
  }

  /** Promotes, retrying while the leader still finds the learner behind (it catches up from its restart). */
  private static Etcdctl.Result promote(ServerProcess via, String id) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (true) {
      Etcdctl.Result r = Etcdctl.run(via.endpoint(), "member", "promote", id);
      if (r.exit() == 0 || !r.stderr().contains("in sync with leader") || Instant.now().isAfter(deadline)) {
        return r;
      }
      Thread.sleep(200); // the learner is still catching up; bounded by the deadline
    }
  }

  /** The member serves {@code key} = {@code value} from its own store (serializable) within 20 s. */
  private static void awaitValue(ServerProcess m, String key, String value) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    Etcdctl.Result r;
    while (!(r = Etcdctl.run(m.endpoint(), "get", key, "--print-value-only", "--consistency=s")).stdout().trim()
        .equals(value)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(m.name() + " does not serve " + key + "=" + value + ":\n" + r.all());
      }
      Thread.sleep(100); // catching up; bounded by the deadline
    }
  }
}
