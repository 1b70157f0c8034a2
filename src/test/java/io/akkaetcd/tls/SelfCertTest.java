package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.interfaces.ECPublicKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** etcd's --auto-tls and --peer-auto-tls: the files under the data dir, and peers dialing them. */
class SelfCertTest {
  @TempDir
  Path dataDir;

  private static final List<URI> URLS = List.of(URI.create("https://127.0.0.1:12379"), URI.create("https://localhost:12379"));

  @Test
  void createsAnEtcdStyleCertificateThenReusesIt() throws Exception {
    TlsInfo info = SelfCert.apply(TlsInfo.client(Map.of("auto-tls", "true", "client-cert-auth", "true")), dataDir,
        "client", URLS);
    Path cert = dataDir.resolve("fixtures/client/cert.pem");
    Path key = dataDir.resolve("fixtures/client/key.pem");
    assertEquals(cert, info.certFile());
    assertEquals(key, info.keyFile());
    assertTrue(info.selfCert());
    assertFalse(info.requiresClientCert(), "etcd's SelfCert starts a fresh TLSInfo: client-cert-auth is dropped");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
    assertTrue(Files.readString(key).startsWith("-----BEGIN EC PRIVATE KEY-----"));

    X509Certificate c = PemFiles.certificates(Files.readAllBytes(cert)).get(0);
    assertEquals("O=etcd", c.getSubjectX500Principal().getName());
    assertEquals(c.getSubjectX500Principal(), c.getIssuerX500Principal());
    assertEquals(521, ((ECPublicKey) c.getPublicKey()).getParams().getCurve().getField().getFieldSize());
    assertEquals(Duration.ofDays(365).toMillis(), c.getNotAfter().getTime() - c.getNotBefore().getTime());
    assertEquals(List.of("1.3.6.1.5.5.7.3.1"), c.getExtendedKeyUsage());
    Set<String> sans = c.getSubjectAlternativeNames().stream().map(s -> s.get(0) + ":" + s.get(1)).collect(Collectors.toSet());
    assertEquals(Set.of("7:127.0.0.1", "2:localhost"), sans);
    PemFiles.keyPair(Files.readAllBytes(cert), Files.readAllBytes(key)); // the pair loads and matches

    byte[] before = Files.readAllBytes(cert);
    SelfCert.apply(TlsInfo.client(Map.of("auto-tls", "true")), dataDir, "client", URLS);
    assertArrayEquals(before, Files.readAllBytes(cert), "reused, as etcd reuses fixtures/client");

    Files.delete(key);
    SelfCert.apply(TlsInfo.client(Map.of("auto-tls", "true")), dataDir, "client", URLS);
    assertFalse(java.util.Arrays.equals(before, Files.readAllBytes(cert)), "a missing key makes a new pair");
  }

  @Test
  void givenCertificatesWin() {
    TlsInfo given = TlsInfo.peer(Map.of("peer-auto-tls", "true", "peer-cert-file", "/c.pem", "peer-key-file", "/k.pem"));
    assertSame(given, SelfCert.apply(given, dataDir, "peer", URLS));
    assertFalse(Files.exists(dataDir.resolve("fixtures")));
    TlsInfo off = TlsInfo.peer(Map.of());
    assertSame(off, SelfCert.apply(off, dataDir, "peer", URLS));
  }

  @Test
  void peersDialAnAutoTlsMemberWithoutVerifying() throws Exception {
    TlsInfo peer = SelfCert.apply(TlsInfo.peer(Map.of("peer-auto-tls", "true")), dataDir, "peer", URLS);
    assertTrue(Files.exists(dataDir.resolve("fixtures/peer/cert.pem")));
    try (TlsEchoServer s = new TlsEchoServer(TlsConfig.server(peer));
        JdkClient.Connection c = PeerDial.connect(TlsConfig.client(peer), s.port())) {
      assertEquals("echo ping", c.say("ping"));
      assertEquals("-", s.nextOutcome().user());
    }
  }

  @Test
  void peersDialWithTheirCertificateAndCheckTheServerName() throws Exception {
    TestCerts ca = TestCerts.create(dataDir.resolve("ca"));
    TestCerts.Issued member = ca.server("member-1");
    TlsInfo peer = TlsInfo.peer(Map.of("peer-cert-file", member.cert().toString(), "peer-key-file",
        member.key().toString(), "peer-trusted-ca-file", ca.caFile().toString(), "peer-client-cert-auth", "true"));
    try (TlsEchoServer s = new TlsEchoServer(TlsConfig.server(peer));
        JdkClient.Connection c = PeerDial.connect(TlsConfig.client(peer), s.port())) {
      assertEquals("echo ping", c.say("ping"));
      assertEquals("member-1", s.nextOutcome().user());
    }

    // A server whose certificate does not name 127.0.0.1 is refused by the dialing peer.
    TestCerts.Issued elsewhere = ca.issue("elsewhere", "member-2", List.of("member-2.example.com"), true,
        TestCerts.KeyFormat.EC_PKCS8);
    TlsInfo elsewhereInfo = TlsInfo.peer(Map.of("peer-cert-file", elsewhere.cert().toString(), "peer-key-file",
        elsewhere.key().toString(), "peer-trusted-ca-file", ca.caFile().toString()));
    try (TlsEchoServer s = new TlsEchoServer(TlsConfig.server(elsewhereInfo))) {
      Exception e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
          () -> PeerDial.connect(TlsConfig.client(peer), s.port()).say("ping"));
      assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
      assertNotEquals(null, s.nextOutcome().failure());
    }
  }
}
