package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A three-member cluster through etcdctl: every member lists every member with the client URLs
 * it published, and {@code etcdctl move-leader} hands leadership over, with etcd's output and
 * errors.
 */
class ClusterMembersTest {
  private static final Pattern ID = Pattern.compile("\"member_id\":(\\d+)");

  @Test
  void memberListAndMoveLeader() {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    try {
      String all = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      // Each member publishes its client URLs through Raft once it runs: soon every member lists all.
      for (ServerProcess m : members) {
        awaitListed(m, members);
      }

      ServerProcess leader = ServerProcess.leader(members);
      ServerProcess target = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
      String from = hexId(leader);
      String to = hexId(target);
      Etcdctl.Result moved = Etcdctl.run(all, "move-leader", to);
      assertEquals(0, moved.exit(), moved.all());
      assertEquals("Leadership transferred from " + from + " to " + to + "\n", moved.stdout());
      assertEquals(target, ServerProcess.leader(members));
      Etcdctl.Result put = Etcdctl.run(all, "put", "after-move", "ok");
      assertEquals("OK\n", put.stdout(), put.all());

      Etcdctl.Result bad = Etcdctl.run(all, "move-leader", "1234abcd");
      assertEquals(1, bad.exit(), bad.all());
      assertTrue(bad.stderr().contains("etcdserver: bad leader transferee"), bad.all());
    } catch (Throwable t) {
      members.forEach(m -> System.out.println("---- " + m.name() + " log\n" + m.log()));
      throw t;
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  private static String hexId(ServerProcess m) {
    Matcher id = ID.matcher(Etcdctl.run(m.endpoint(), "endpoint", "status", "-w", "json").stdout());
    assertTrue(id.find());
    return Long.toHexString(Long.parseUnsignedLong(id.group(1)));
  }

  private static void awaitListed(ServerProcess asked, List<ServerProcess> members) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    String out = "";
    while (Instant.now().isBefore(deadline)) {
      out = Etcdctl.run(asked.endpoint(), "member", "list").stdout();
      String listed = out;
      if (members.stream().allMatch(m -> listed.contains(m.name() + ", http://127.0.0.1:")
          && listed.contains(", " + m.clientUrl() + ", false"))) {
        return;
      }
    }
    throw new AssertionError(asked.name() + " does not list every member's client URL:\n" + out);
  }
}
