package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.tls.TestCerts;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A three-member akka-etcd cluster with client and peer TLS ({@code https://} peer URLs: Artery's
 * tls-tcp transport with etcd's peer flags): it elects a leader, replicates a put to every member
 * and survives kill -9 of its leader; a member whose certificate comes from a CA the others do not
 * trust is added as a learner but never joins, and the rest keep working.
 */
class PeerTlsTest {
  @TempDir Path tmp;

  private static List<String> serverFlags(TestCerts ca, TestCerts.Issued cert) {
    String c = cert.cert().toString();
    String k = cert.key().toString();
    String trusted = ca.caFile().toString();
    return List.of("--cert-file", c, "--key-file", k, "--trusted-ca-file", trusted,
        "--peer-cert-file", c, "--peer-key-file", k, "--peer-trusted-ca-file", trusted, "--peer-client-cert-auth");
  }

  @Test
  void clusterFormsReplicatesSurvivesItsLeaderAndKeepsAStrangerOut() {
    TestCerts ca = TestCerts.create(tmp.resolve("ca"));
    List<String> ctl = ServerProcess.Tls.etcdctlAs(ca, ca.client("root"));
    ServerProcess.Tls tls = new ServerProcess.Tls("https", "https", serverFlags(ca, ca.server("member")), ctl);
    TestCerts other = TestCerts.create(tmp.resolve("other"), "other CA");
    ServerProcess.Tls strangerTls = new ServerProcess.Tls("https", "https",
        serverFlags(other, other.server("stranger")), ServerProcess.Tls.etcdctlAs(other, other.client("root")));

    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, tls, List.of());
    List<ServerProcess> all = new ArrayList<>(members);
    try {
      assertTrue(members.get(0).peerUrl().startsWith("https://"), members.get(0).peerUrl());
      putOnLeaderReadOnEvery(members, "k", "v1");
      ServerProcess leader = ServerProcess.leader(members);

      // A learner added for a member whose certificate the others do not trust: it never joins.
      String endpoints = String.join(",", members.stream().map(ServerProcess::endpoint).toList());
      ServerProcess stranger = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "m4", members, strangerTls,
          List.of());
      all.add(stranger);
      List<String> add = new ArrayList<>(ctl);
      add.addAll(List.of("member", "add", "m4", "--learner", "--peer-urls=" + stranger.peerUrl()));
      Etcdctl.Result added = ServerProcess.reconfigure(endpoints, add.toArray(String[]::new));
      assertEquals(0, added.exit(), added.all());
      stranger.launchOnly();
      // It runs and asks the members for the membership, and no handshake with them completes.
      stranger.awaitLogged("no membership from", Duration.ofSeconds(90));
      Instant until = Instant.now().plus(Duration.ofSeconds(20));
      while (Instant.now().isBefore(until)) {
        Etcdctl.Result list = leader.ctl("member", "list");
        assertEquals(0, list.exit(), list.all());
        assertTrue(list.stdout().lines().anyMatch(l -> l.contains(", unstarted, , " + stranger.peerUrl())),
            "the stranger's member must stay unstarted:\n" + list.all());
      }
      Etcdctl.Result during = leader.ctl("put", "k", "v2");
      assertEquals("OK\n", during.stdout(), "the members keep working: " + during.all());

      // kill -9 of the leader: the other two elect a new one and take writes.
      leader.kill();
      List<ServerProcess> rest = members.stream().filter(m -> m != leader).toList();
      ServerProcess next = ServerProcess.leader(rest);
      Etcdctl.Result after = next.ctl("put", "k", "v3");
      assertEquals("OK\n", after.stdout(), after.all());
      ServerProcess.awaitConverged(rest);
    } finally {
      all.forEach(ServerProcess::close);
    }
  }

  /**
   * {@code --peer-auto-tls} alone on {@code https://} peer URLs: each member makes its own
   * self-signed certificate under {@code <data-dir>/fixtures/peer} (etcd's place and names), the
   * members dial each other without verifying it (etcd's InsecureSkipVerify for self-signed peer
   * certificates), the cluster forms and a put reaches every member.
   */
  @Test
  void peerAutoTlsClusterFormsAndReplicates() throws Exception {
    ServerProcess.Tls tls = new ServerProcess.Tls("http", "https", List.of("--peer-auto-tls"), List.of());
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, tls, List.of());
    try {
      for (ServerProcess m : members) {
        assertTrue(m.peerUrl().startsWith("https://"), m.peerUrl());
        Path fixtures = m.dataDir().resolve("fixtures").resolve("peer");
        assertTrue(Files.isRegularFile(fixtures.resolve("cert.pem")), m.name() + ": no " + fixtures + "/cert.pem");
        assertTrue(Files.isRegularFile(fixtures.resolve("key.pem")), m.name() + ": no " + fixtures + "/key.pem");
        X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(fixtures.resolve("cert.pem"))));
        assertEquals(cert.getSubjectX500Principal(), cert.getIssuerX500Principal(), m.name() + ": not self-signed");
      }
      putOnLeaderReadOnEvery(members, "auto", "tls");
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  /** A put through the leader is read back from every member's own store. */
  private static void putOnLeaderReadOnEvery(List<ServerProcess> members, String key, String value) {
    ServerProcess leader = ServerProcess.leader(members);
    Etcdctl.Result put = leader.ctl("put", key, value);
    assertEquals("OK\n", put.stdout(), put.all());
    ServerProcess.awaitConverged(members);
    for (ServerProcess m : members) {
      Etcdctl.Result get = m.ctl("get", key, "--print-value-only", "--consistency=s");
      assertEquals(value + "\n", get.stdout(), m.name() + ": " + get.all());
    }
  }
}
