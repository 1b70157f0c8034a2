package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.tls.TestCerts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's two Python clients of etcd, against Debian's etcd 3.4 and akka-etcd started alike:
 * python3-etcd3 (gRPC) runs one scenario over TLS (src/test/resources/wire/python-etcd3-client.py:
 * KV, txn, leases, watches, compaction, its Lock, members, status, alarms, a snapshot, defragment,
 * auth) whose transcripts must be equal; python3-etcd3gw (OpenStack's client of the JSON gateway)
 * runs its own functional tests, which must all pass on both, none skipped.
 */
class PythonClientsTest {
  private static final String PYTHON = "/usr/bin/python3"; // Debian's, which has the packages
  private static final Pattern RESULT =
      Pattern.compile("RESULT run=(\\d+) failures=(\\d+) errors=(\\d+) skipped=(\\d+)");

  @TempDir static Path tmp;

  @Test
  void pythonEtcd3OverTls() throws Exception {
    TestCerts ca = TestCerts.create(tmp.resolve("ca"));
    TestCerts.Issued server = ca.server("server");
    ServerProcess.Tls tls = new ServerProcess.Tls("https", "http",
        List.of("--cert-file", server.cert().toString(), "--key-file", server.key().toString()),
        List.of("--cacert", ca.caFile().toString()));
    List<String> transcripts = onEtcdThenAkkaEtcd(tls, s -> {
      String endpoint = s.endpoint();
      return List.of(PYTHON, ChildScript.resource("wire/python-etcd3-client.py"),
          endpoint.substring(0, endpoint.lastIndexOf(':')), endpoint.substring(endpoint.lastIndexOf(':') + 1),
          ca.caFile().toString());
    });
    assertTrue(transcripts.get(0).strip().endsWith("[\"after auth disable\", \"as root\"]"),
        "etcd did not run the scenario through:\n" + transcripts.get(0));
    assertEquals(transcripts.get(0), transcripts.get(1), "akka-etcd's transcript differs from etcd's");
  }

  @Test
  void etcd3gwsOwnFunctionalTests() throws Exception {
    List<String> reports = onEtcdThenAkkaEtcd(ServerProcess.Tls.NONE, s -> List.of(PYTHON,
        ChildScript.resource("wire/etcd3gw-suite.py"), s.endpoint().substring(s.endpoint().lastIndexOf(':') + 1)));
    List<String> results = new ArrayList<>();
    for (String report : reports) {
      Matcher m = RESULT.matcher(report);
      assertTrue(m.find(), report);
      assertTrue(Integer.parseInt(m.group(1)) >= 20, "the suite ran " + m.group(1) + " tests:\n" + report);
      assertEquals("0 0 0", m.group(2) + " " + m.group(3) + " " + m.group(4), "failures, errors, skipped:\n" + report);
      results.add(m.group());
    }
    assertEquals(results.get(0), results.get(1));
  }

  /** What {@code command} printed against a fresh etcd, then against a fresh akka-etcd. */
  private static List<String> onEtcdThenAkkaEtcd(ServerProcess.Tls tls, Function<ServerProcess, List<String>> command)
      throws Exception {
    List<String> printed = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      try (ServerProcess s = ServerProcess.start(kind, tls, List.of())) {
        printed.add(ChildScript.run(command.apply(s), Map.of(), 180));
      }
    }
    return printed;
  }
}
