package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A member whose Akka incarnation another member quarantines (as a manual down would) can never
 * talk to it again as it is: it restarts its actor system by itself, in the same process, as a new
 * incarnation from its data directory, and rejoins: it serves what was written meanwhile and the
 * members converge.
 */
class ClusterQuarantineTest {

  @Test
  void aQuarantinedMemberRestartsItsActorSystemAndRejoins() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    try {
      // The leader is quarantined: the others must elect while it goes away.
      ServerProcess victim = ServerProcess.leader(members);
      ServerProcess by = members.stream().filter(m -> m != victim).findFirst().orElseThrow();
      long pid = victim.pid();
      assertEquals(0, Etcdctl.run(by.endpoint(), "put", "before", "1").exit());

      by.quarantine(victim.name());
      victim.awaitLogged("restarting the member as a new Akka incarnation", Duration.ofSeconds(30));
      by.cutOff(java.util.Set.of()); // the request is withdrawn; the new incarnation is welcome

      // If the victim led, the others elect a new leader first.
      Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
      Etcdctl.Result put;
      while ((put = Etcdctl.run(by.endpoint(), "put", "after", "2")).exit() != 0) {
        assertTrue(Instant.now().isBefore(deadline), "a write after the quarantine:\n" + put.all());
        Thread.sleep(200); // an election; bounded by the deadline
      }
      deadline = Instant.now().plus(Duration.ofSeconds(60));
      Etcdctl.Result r;
      while (!(r = Etcdctl.run(victim.endpoint(), "get", "after", "--print-value-only")).stdout().trim().equals("2")) {
        assertTrue(Instant.now().isBefore(deadline), "the restarted member serves the new write:\n" + r.all());
        Thread.sleep(200); // it is restarting; bounded by the deadline
      }
      assertTrue(victim.alive() && victim.pid() == pid, "restarted inside the same process");
      ServerProcess.awaitConverged(members);
    } finally {
      members.forEach(ServerProcess::close);
    }
  }
}
