package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.tls.TestCerts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Python clients of etcd, against Debian's etcd 3.4 and akka-etcd started alike:
 * python3-etcd3 (gRPC) runs one scenario over TLS (src/test/resources/wire/python-etcd3-client.py:
 * KV, txn, leases, watches, compaction, its Lock, members, status, alarms, a snapshot, defragment,
 * auth) whose transcripts must be equal; python3-etcd3gw (OpenStack's client of the JSON gateway)
 * and python3-tooz (OpenStack's coordination library) run the tests they ship, which must end
 * alike on both (unittest_outcomes.py prints each test's outcome).
 */
class PythonClientsTest {
  private static final String PYTHON = "/usr/bin/python3"; // Debian's, which has the packages
  private static final Pattern OUTCOME = Pattern.compile("(?m)^OUTCOME (\\S+) (\\S+)$");
  private static final Pattern RESULT =
      Pattern.compile("RESULT run=(\\d+) failures=(\\d+) errors=(\\d+) skipped=(\\d+)");

  @TempDir static Path tmp;

  @Test
  void pythonEtcd3OverTls() throws Exception {
    TestCerts ca = TestCerts.create(tmp.resolve("ca"));
    TestCerts.Issued server = ca.server("server");
    List<String> transcripts = onEtcdThenAkkaEtcd(ServerProcess.Tls.serverOnly(ca, server), s -> List.of(PYTHON,
        ChildScript.resource("wire/python-etcd3-client.py"), "127.0.0.1", port(s), ca.caFile().toString()));
    assertTrue(transcripts.get(0).strip().endsWith("[\"after auth disable\", \"as root\"]"),
        "etcd did not run the scenario through:\n" + transcripts.get(0));
    assertEquals(transcripts.get(0), transcripts.get(1), "akka-etcd's transcript differs from etcd's");
  }

  @Test
  void etcd3gwsOwnFunctionalTests() throws Exception {
    List<Map<String, String>> outcomes = outcomes(onEtcdThenAkkaEtcd(ServerProcess.Tls.NONE,
        s -> List.of(PYTHON, ChildScript.resource("wire/etcd3gw-suite.py"), port(s))));
    assertTrue(outcomes.get(0).size() >= 20 && outcomes.get(0).values().stream().allMatch("ok"::equals),
        "etcd: " + outcomes.get(0));
    assertEquals(outcomes.get(0), outcomes.get(1));
  }

  /**
   * OpenStack's tooz (Debian's python3-tooz) runs its coordination tests (locks, groups, leaders,
   * watchers) through its etcd3 driver (python3-etcd3): each test must end as it ends on etcd. Its
   * etcd3gw driver cannot load in Debian's packages (it passes api_path to a client that takes
   * none). On etcd, 25 tests are skipped as the driver's "not implemented", and the lock test that
   * waits for a held lock fails in the client (python3-etcd3's retry wait against Debian's
   * tenacity: a TypeError).
   */
  @Test
  void toozCoordinationTests() throws Exception {
    List<Map<String, String>> outcomes = outcomes(onEtcdThenAkkaEtcd(ServerProcess.Tls.NONE,
        s -> Map.of("TOOZ_TEST_URL", "etcd3://" + s.endpoint()),
        s -> List.of(PYTHON, ChildScript.resource("wire/unittest_outcomes.py"), "tooz.tests.test_coordination")));
    assertTrue(outcomes.get(0).values().stream().filter("ok"::equals).count() >= 40, "etcd: " + outcomes.get(0));
    assertEquals(outcomes.get(0), outcomes.get(1));
  }

  private static String port(ServerProcess s) {
    return s.endpoint().substring(s.endpoint().lastIndexOf(':') + 1);
  }

  /** Each report's "OUTCOME <test> <outcome>" lines (unittest_outcomes.py), by test. */
  private static List<Map<String, String>> outcomes(List<String> reports) {
    List<Map<String, String>> all = new ArrayList<>();
    for (String report : reports) {
      Map<String, String> byTest = new TreeMap<>();
      Matcher m = OUTCOME.matcher(report);
      while (m.find()) {
        byTest.put(m.group(1), m.group(2));
      }
      assertTrue(RESULT.matcher(report).find(), "no RESULT line:\n" + report);
      all.add(byTest);
    }
    return all;
  }

  /** What {@code command} printed against a fresh etcd, then against a fresh akka-etcd. */
  private static List<String> onEtcdThenAkkaEtcd(ServerProcess.Tls tls, Function<ServerProcess, List<String>> command)
      throws Exception {
    return onEtcdThenAkkaEtcd(tls, s -> Map.of(), command);
  }

  /** The same, with {@code env} added to the command's environment. */
  private static List<String> onEtcdThenAkkaEtcd(ServerProcess.Tls tls,
      Function<ServerProcess, Map<String, String>> env, Function<ServerProcess, List<String>> command)
      throws Exception {
    List<String> printed = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      try (ServerProcess s = ServerProcess.start(kind, tls, List.of())) {
        printed.add(ChildScript.run(command.apply(s), env.apply(s), 300));
      }
    }
    return printed;
  }
}
