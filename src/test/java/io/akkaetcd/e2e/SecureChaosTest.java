package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.tls.TestCerts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * {@link ClusterChaosTest}'s cycle (kill -9, pauses, partitions, a member replaced and caught up
 * from a snapshot, the linearizability and watch checks) on a secured cluster: https:// peer URLs
 * with etcd's peer flags and client certificate auth, clients over TLS, and auth on. The load runs
 * as {@value #USER}, whose role grants readwrite on the test's two prefixes and, until it is
 * revoked mid-run, on {@value #REVOKED}.
 *
 * <p>Added at the end of each cycle: a member whose certificate comes from a CA the others do not
 * trust is added as a learner, never joins, and the rest keep serving; it is removed again, and the
 * permission on {@value #REVOKED} is revoked under load. Checked at the end besides the base
 * checks: every member denies {@value #USER}'s write under {@value #REVOKED} and shows the same
 * users, roles and grants (the member restarted after kill -9 and the one caught up from a
 * snapshot included).
 */
class SecureChaosTest extends ClusterChaosTest {
  private static final String USER = "chaos";
  private static final String ROOT = "root:pw";
  private static final String REVOKED = "x/";
  private static final String DENIED = "etcdserver: permission denied";

  private final Path dir;
  private final TestCerts ca;
  private final ServerProcess.Tls tls;
  private final List<String> ctlTls;
  private final TestCerts.Issued loadCert;
  private final TestCerts.Issued rootCert;
  /** For the JSON gateway, which refuses a certificate with a CN under --client-cert-auth, as etcd's does. */
  private final TestCerts.Issued gatewayCert;
  private int strangers;

  SecureChaosTest() throws java.io.IOException {
    dir = Files.createTempDirectory("securechaos");
    ca = TestCerts.create(dir.resolve("ca"));
    rootCert = ca.client("root");
    gatewayCert = ca.clientWithoutCn("gateway");
    ctlTls = ServerProcess.Tls.etcdctlAs(ca, rootCert);
    loadCert = ca.client(USER);
    tls = new ServerProcess.Tls("https", "https", serverFlags(ca, ca.server("member")), ctlTls);
  }

  private static List<String> serverFlags(TestCerts ca, TestCerts.Issued cert) {
    String c = cert.cert().toString();
    String k = cert.key().toString();
    String trusted = ca.caFile().toString();
    return List.of("--cert-file", c, "--key-file", k, "--trusted-ca-file", trusted, "--client-cert-auth",
        "--peer-cert-file", c, "--peer-key-file", k, "--peer-trusted-ca-file", trusted, "--peer-client-cert-auth");
  }

  /**
   * In bin/test since it passed twice on a quiet machine in under 4 minutes (126 and 141 s,
   * 2026-11-27, after the watch-router fix for progress on a stream without watches); under load
   * near 40 it has failed to form or keep a leader in time. {@code -Dchaos.secure=false} skips it;
   * see docs/chaos.md.
   */
  @Override
  @Test
  @DisabledIfSystemProperty(named = "chaos.secure", matches = "false")
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void membersStayLinearizableUnderCrashesPausesAndPartitions() throws Exception {
    super.membersStayLinearizableUnderCrashesPausesAndPartitions();
  }

  /** TLS members; then root, {@value #USER} and its role, and auth on. */
  @Override
  List<ServerProcess> startCluster(int size, List<String> flags) {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, size, tls, flags);
    assertTrue(members.get(0).peerUrl().startsWith("https://"), members.get(0).peerUrl());
    String endpoint = members.get(0).endpoint();
    for (List<String> cmd : List.of(List.of("user", "add", ROOT), List.of("user", "add", USER + ":cpw"),
        List.of("role", "add", "load"), List.of("role", "grant-permission", "load", "readwrite", "reg-", "--prefix"),
        List.of("role", "grant-permission", "load", "readwrite", "w/", "--prefix"),
        List.of("role", "grant-permission", "load", "readwrite", REVOKED, "--prefix"),
        List.of("user", "grant-role", USER, "load"), List.of("auth", "enable"))) {
      Etcdctl.Result r = ctlAs(endpoint, List.of(), cmd);
      assertEquals(0, r.exit(), cmd + ":\n" + r.all());
    }
    return members;
  }

  @Override
  ServerProcess replacement(String name, ServerProcess out, List<ServerProcess> members, List<String> flags) {
    return ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, name, members, tls, flags);
  }

  @Override
  io.etcd.jetcd.ClientBuilder client(String... endpoints) {
    try {
      return Client.builder().endpoints(endpoints).user(bytes(USER)).password(bytes("cpw"))
          .sslContext(b -> b.trustManager(ca.caFile().toFile())
              .keyManager(loadCert.cert().toFile(), loadCert.key().toFile()));
    } catch (javax.net.ssl.SSLException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * etcdctl as root by its certificate's CN (--client-cert-auth), not {@code --user}: a password
   * costs every health check, HashKV and membership call a bcrypt and an Authenticate entry, which
   * a member just restarted on a loaded machine must apply before the token works. Tokens stay
   * covered by the load's jetcd clients and the {@code --user} calls of the added checks.
   */
  @Override
  String[] adminFlags() {
    return ctlTls.toArray(String[]::new);
  }

  /**
   * A stranger (certificate from another CA) added as a learner never joins while the others keep
   * serving; then, under load, the grant on {@value #REVOKED} is used once and revoked.
   */
  @Override
  void moreFaults(List<ServerProcess> members) {
    TestCerts other = TestCerts.create(dir.resolve("other" + (++strangers)), "other CA");
    ServerProcess.Tls strangerTls = new ServerProcess.Tls("https", "https",
        serverFlags(other, other.server("stranger")), ServerProcess.Tls.etcdctlAs(other, other.client("root")));
    ServerProcess stranger = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "s" + strangers, members,
        strangerTls, List.of());
    try {
      Etcdctl.Result added = ServerProcess.reconfigure(endpoints(members), admin("member", "add", stranger.name(),
          "--learner", "--peer-urls=" + stranger.peerUrl()));
      assertEquals(0, added.exit(), added.all());
      stranger.launchOnly();
      stranger.awaitLogged("no membership from", Duration.ofSeconds(90));
      awaitProgress(20);
      Etcdctl.Result list = ctlAs(members.get(0).endpoint(), List.of("--user", ROOT), List.of("member", "list"));
      assertTrue(list.stdout().lines().anyMatch(l -> l.contains(", unstarted, , " + stranger.peerUrl())),
          "the stranger must stay unstarted:\n" + list.all());
      String id = list.stdout().lines().filter(l -> l.contains(stranger.peerUrl())).findFirst().orElseThrow()
          .split(",")[0].trim();
      Etcdctl.Result removed = ServerProcess.reconfigure(endpoints(members), admin("member", "remove", id));
      assertEquals(0, removed.exit(), removed.all());
    } finally {
      stranger.close();
    }

    String endpoint = ServerProcess.leader(members).endpoint();
    Etcdctl.Result allowed = ctlAs(endpoint, List.of("--user", USER + ":cpw"), List.of("put", REVOKED + "k", "v"));
    assertEquals(0, allowed.exit(), allowed.all());
    Etcdctl.Result revoked = ctlAs(endpoint, List.of("--user", ROOT),
        List.of("role", "revoke-permission", "load", REVOKED, "--prefix"));
    assertEquals(0, revoked.exit(), revoked.all());
    awaitProgress(20);
  }

  /** Every member denies the revoked prefix and holds the same users, roles and grants. */
  @Override
  void finalChecks(List<ServerProcess> members) {
    Map<String, String> authState = new HashMap<>();
    for (ServerProcess m : members) {
      try (Client c = client(m.clientUrl()).build()) {
        ExecutionException denied = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> c.getKVClient().put(bytes(REVOKED + "late"), bytes("v")).get(30, TimeUnit.SECONDS));
        assertTrue(String.valueOf(denied.getCause().getMessage()).contains(DENIED), m.name() + ": " + denied);
      }
      StringBuilder state = new StringBuilder();
      for (List<String> cmd : List.of(List.of("user", "list"), List.of("role", "list"), List.of("role", "get", "load"),
          List.of("user", "get", USER), List.of("role", "get", "root"))) {
        Etcdctl.Result r = ctlAs(m.endpoint(), List.of("--user", ROOT), cmd);
        assertEquals(0, r.exit(), m.name() + " " + cmd + ":\n" + r.all());
        state.append(r.stdout());
      }
      state.append(authStatus(m));
      authState.put(m.name(), state.toString());
    }
    assertEquals(1, authState.values().stream().distinct().count(), "auth state differs: " + authState);
    String load = authState.values().iterator().next();
    // etcdctl 3.4 prints a prefix grant as "[w/, w0) (prefix w/)" ("<open ended>" is a from-key one)
    assertTrue(load.contains("[w/, w0) (prefix w/)") && !load.contains("(prefix " + REVOKED + ")"), load);
  }

  private static final java.util.regex.Pattern AUTH_STATUS =
      java.util.regex.Pattern.compile("\"enabled\":(true|false).*\"authRevision\":\"?(\\d+)");

  /**
   * The member's own AuthStatus (etcd 3.5's; etcdctl 3.4 has no {@code auth status}) through the
   * JSON gateway on its client port: "enabled=true authRevision=N". Every auth change is a Raft
   * entry that bumps the revision, so equal revisions on all members mean they applied the same ones.
   */
  private String authStatus(ServerProcess m) {
    try {
      java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
          .version(java.net.http.HttpClient.Version.HTTP_1_1)
          .sslContext(new io.akkaetcd.tls.JdkClient(ca.caCertificate(), gatewayCert).context()).build();
      java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder()
          .uri(java.net.URI.create(m.clientUrl() + "/v3/auth/status")).timeout(Duration.ofSeconds(30))
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      java.util.regex.Matcher status = AUTH_STATUS.matcher(r.body());
      assertTrue(r.statusCode() == 200 && status.find(), m.name() + " auth/status: " + r.statusCode() + " " + r.body());
      assertEquals("true", status.group(1), m.name() + " auth/status: " + r.body());
      return "enabled=" + status.group(1) + " authRevision=" + status.group(2) + "\n";
    } catch (java.io.IOException | java.security.GeneralSecurityException e) {
      throw new AssertionError(m.name() + " auth/status", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(m.name() + " auth/status interrupted", e);
    }
  }

  /** etcdctl over TLS against one member, as {@code user} (flags; empty: the certificate's CN, root). */
  private Etcdctl.Result ctlAs(String endpoint, List<String> user, List<String> cmd) {
    List<String> args = new ArrayList<>(ctlTls);
    args.addAll(user);
    args.addAll(cmd);
    return Etcdctl.run(endpoint, null, args);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  void tearDown() {
    ServerProcess.deleteTree(dir);
  }
}
