package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --experimental-strict-auth-matrix}: etcd 3.5.28's stricter checks, off by default. With
 * auth on, the same etcdctl commands by a non-root user (alice) and by no user are allowed by
 * default (etcd 3.4: Compact, Alarm, Status, MemberList and the lease RPCs are unchecked) and
 * refused with the flag (root only; a user required), while root may still do all of them.
 */
class StrictAuthMatrixTest {
  private static final String ALICE = "--user=alice:apw";
  private static final String ROOT = "--user=root:pw";

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
  void offByDefaultAs34() {
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
    }
  }

  @Test
  void strictMatrixRefusesWhat35Refuses() {
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
    }
  }
}
