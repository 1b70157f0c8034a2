package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.tls.TestCerts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * npm's etcd3 client (the Node client etcd users have) over TLS, against Debian's etcd 3.4 and
 * akka-etcd started alike: one scenario (src/test/resources/wire/etcd3-client.js: KV, txn,
 * leases, watches with history, compaction errors, the client's own Lock, Election and STM, a
 * namespace, members, roles and users, auth with its error classes) must print the same
 * transcript on both, revisions included. With client certificates the certificate's CN is the
 * user when no token is sent, so the transcripts also cover that identity.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Etcd3NodeClientTest {
  private static final String SCRIPT = "wire/etcd3-client.js";
  /** The client's version and the grpc-js a fresh `npm install etcd3` resolved to on 2026-11-29. */
  private static final String[] MODULES = {"etcd3@1.1.2", "@grpc/grpc-js@1.14.7"};
  /** The scenario's last step: the transcript ran to its end. */
  private static final String LAST = "[\"after auth disable\",\"hello\"]";

  @TempDir static Path tmp;
  private Path modules;
  private TestCerts ca;
  private TestCerts.Issued server;
  private TestCerts.Issued root;

  @BeforeAll
  void setUp() throws Exception {
    modules = NpmModules.install("etcd3-1.1.2", MODULES);
    ca = TestCerts.create(tmp.resolve("ca"));
    server = ca.server("server");
    root = ca.client("root");
  }

  @Test
  void serverTlsOneMember() throws Exception {
    ServerProcess.Tls tls = ServerProcess.Tls.serverOnly(ca, server);
    sameAsEtcd(kind -> List.of(ServerProcess.start(kind, tls, List.of())), List.of(ca.caFile().toString()));
  }

  @Test
  void clientCertificatesOneMember() throws Exception {
    ServerProcess.Tls tls = ServerProcess.Tls.clientCerts(ca, server, root);
    List<String> client = List.of(ca.caFile().toString(), root.cert().toString(), root.key().toString());
    List<String> transcript = sameAsEtcd(kind -> List.of(ServerProcess.start(kind, tls, List.of())), client);
    // the certificate's CN (root) is the user of a call without a token
    assertTrue(transcript.contains("[\"no credentials\",\"hello\"]"), String.join("\n", transcript));
  }

  /** Three members, the client on a follower: its writes, leases and watches go through forwarding. */
  @Test
  void serverTlsThroughAFollower() throws Exception {
    ServerProcess.Tls tls = ServerProcess.Tls.serverOnly(ca, server);
    sameAsEtcd(kind -> ServerProcess.cluster(kind, 3, tls, List.of()), List.of(ca.caFile().toString()));
  }

  private interface Servers {
    List<ServerProcess> start(ServerProcess.Kind kind);
  }

  /**
   * Runs the scenario against etcd, then akka-etcd (on a follower when there are several members),
   * and requires one transcript that ran to its last step; returns it.
   */
  private List<String> sameAsEtcd(Servers servers, List<String> clientTls) throws Exception {
    List<List<String>> transcripts = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      List<ServerProcess> members = servers.start(kind);
      try {
        ServerProcess target = members.get(0);
        if (members.size() > 1) {
          ServerProcess leader = ServerProcess.leader(members);
          target = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        }
        List<String> args = new ArrayList<>(List.of(target.clientUrl()));
        args.addAll(clientTls);
        transcripts.add(List.of(NpmModules.run(modules, SCRIPT, 120, args).strip().split("\n")));
      } finally {
        members.forEach(ServerProcess::close);
      }
    }
    List<String> etcd = transcripts.get(0);
    assertEquals(LAST, etcd.get(etcd.size() - 1), "etcd did not run the scenario through:\n" + String.join("\n", etcd));
    assertEquals(String.join("\n", etcd), String.join("\n", transcripts.get(1)),
        "akka-etcd's transcript differs from etcd's");
    return etcd;
  }
}
