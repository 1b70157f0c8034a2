package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * --experimental-learner-auto-promote (issue #33, item 5; etcd #15107): on a three-member cluster
 * with the flag, a learner added by etcdctl catches up and is made a voter by the leader, with no
 * {@code member promote}; it then takes writes. Without the flag a learner stays one
 * (ClusterLearnerTest: still a learner once caught up, until an operator promotes it).
 */
class LearnerAutoPromoteTest {
  private static final List<String> FLAG = List.of("--experimental-learner-auto-promote");

  @Test
  void aCaughtUpLearnerIsPromotedByTheLeader() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, FLAG);
    List<ServerProcess> all = new ArrayList<>(members);
    try {
      String endpoints = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      for (int i = 0; i < 50; i++) {
        assertEquals(0, Etcdctl.run(endpoints, "put", "k" + i, "v").exit());
      }
      ServerProcess learner = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m4", members, FLAG);
      all.add(learner);
      Etcdctl.Result added = ServerProcess.reconfigure(endpoints, "member", "add", "m4", "--learner",
          "--peer-urls=" + learner.peerUrl());
      assertEquals(0, added.exit(), added.all());
      learner.startLearner();
      String id = learner.memberIdHex();
      Etcdctl.Result list;

      // No operator: the leader promotes it once it is in sync.
      Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
      while (!(list = Etcdctl.run(endpoints, "member", "list")).stdout().lines()
          .anyMatch(l -> l.startsWith(id) && l.endsWith(", false"))) {
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError("the learner was not promoted:\n" + list.all());
        }
        Thread.sleep(200); // polling the member list; bounded by the deadline
      }
      assertEquals(4, list.stdout().lines().filter(l -> l.endsWith(", false")).count(), list.all());
      assertEquals(0, Etcdctl.run(learner.endpoint(), "put", "from-m4", "voter").exit(), "a voter takes writes");
      ServerProcess.awaitConverged(all);
    } finally {
      all.forEach(ServerProcess::close);
    }
  }
}
