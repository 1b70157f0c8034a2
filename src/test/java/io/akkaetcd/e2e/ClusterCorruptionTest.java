package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.mvcc.StoreDamage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * etcd 3.4's corruption checks on a three-member cluster, with one follower's store damaged on
 * purpose (stopped, one value rewritten in its LevelDB, as a bad disk would): with
 * --experimental-initial-corrupt-check it refuses to start, with etcd's error, and exits 1;
 * started without it, the leader's periodic check (--experimental-corrupt-check-time) raises
 * CORRUPT for that member, `etcdctl alarm list` shows it, writes are refused with "etcdserver:
 * corrupt cluster" and reads are still served.
 */
class ClusterCorruptionTest {
  private static final List<String> PERIODIC = List.of("--experimental-corrupt-check-time=1s");

  @Test
  void aDamagedMemberIsRefusedAtStartAndAlarmedByTheLeader() {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, PERIODIC);
    try {
      ServerProcess leader = ServerProcess.leader(members);
      ServerProcess victim = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
      for (int i = 0; i < 5; i++) {
        assertEquals(0, leader.ctl("put", "k" + i, "v" + i).exit());
      }
      ServerProcess.awaitConverged(members);
      leader.awaitLogged("enabled corruption checking", Duration.ofSeconds(5));
      String victimId = victim.memberIdHex();
      victim.stop();
      StoreDamage.rewriteValue(victim.dataDir().resolve("member").resolve("mvcc"), "k1", "damaged");

      victim.setExtraFlags(List.of("--experimental-corrupt-check-time=1s", "--experimental-initial-corrupt-check"));
      victim.launchOnly();
      assertTrue(victim.awaitExit(), "the damaged member exits by itself");
      assertEquals(1, victim.exitValue(), victim.log());
      assertTrue(victim.log().contains(victimId + " found data inconsistency with peers"), victim.log());
      assertEquals("", leader.ctl("alarm", "list").stdout(), "members that agree raise no alarm");

      victim.setExtraFlags(PERIODIC);
      victim.start();
      String alarm = "memberID:" + Long.toUnsignedString(Long.parseUnsignedLong(victimId, 16)) + " alarm:CORRUPT \n";
      awaitAlarm(leader, alarm, Duration.ofSeconds(30));
      assertEquals(alarm, victim.ctl("alarm", "list").stdout(), "every member holds the alarm");

      Etcdctl.Result put = leader.ctl("put", "k9", "v9");
      assertEquals(1, put.exit(), put.all());
      // clientv3 logs a retry warning first for DataLoss, as against etcd; the error is the last line
      assertEquals("Error: etcdserver: corrupt cluster\n", put.error(), put.all());
      Etcdctl.Result del = leader.ctl("del", "k2");
      assertEquals("Error: etcdserver: corrupt cluster\n", del.error(), del.all());
      Etcdctl.Result get = leader.ctl("get", "k2", "--print-value-only");
      assertEquals("v2\n", get.stdout(), get.all());
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  /** Polls `etcdctl alarm list` until it prints {@code expected}. */
  private static void awaitAlarm(ServerProcess m, String expected, Duration within) {
    Instant deadline = Instant.now().plus(within);
    String last = "";
    while (Instant.now().isBefore(deadline)) {
      last = m.ctl("alarm", "list", "--command-timeout=2s").stdout();
      if (last.equals(expected)) {
        return;
      }
    }
    throw new AssertionError("alarm list did not show " + expected + " within " + within + "; last: " + last);
  }
}
