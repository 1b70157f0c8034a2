package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Artery's engines from etcd's peer flags, shaking hands in memory as two members would. */
class PeerSslEngineProviderTest {
  @TempDir
  Path dir;

  private static Config peerFlags(TestCerts ca, TestCerts.Issued member, String... more) {
    Map<String, Object> m = new java.util.HashMap<>(Map.of("peer-cert-file", member.cert().toString(),
        "peer-key-file", member.key().toString(), "peer-trusted-ca-file", ca.caFile().toString(),
        "peer-client-cert-auth", true));
    for (int i = 0; i < more.length; i += 2) {
      m.put(more[i], more[i + 1]);
    }
    return ConfigFactory.parseMap(m);
  }

  @Test
  void membersOfOneCaShakeHandsAndSeeEachOther() throws Exception {
    TestCerts ca = TestCerts.create(dir);
    PeerSslEngineProvider a = new PeerSslEngineProvider(peerFlags(ca, ca.server("member-a")));
    PeerSslEngineProvider b = new PeerSslEngineProvider(peerFlags(ca, ca.server("member-b")));
    SSLEngine server = a.createServerSSLEngine("127.0.0.1", 12380);
    SSLEngine client = b.createClientSSLEngine("127.0.0.1", 12380);
    EngineHandshake.run(client, server);
    assertEquals("member-b", CertIdentity.user(server.getSession()).orElseThrow());
    assertEquals("member-a", CertIdentity.user(client.getSession()).orElseThrow());
    assertTrue(server.getNeedClientAuth());
  }

  @Test
  void aMemberFromAnotherCaIsKeptOut() throws Exception {
    TestCerts ca = TestCerts.create(dir.resolve("ca"));
    TestCerts other = TestCerts.create(dir.resolve("other"), "other CA");
    PeerSslEngineProvider a = new PeerSslEngineProvider(peerFlags(ca, ca.server("member-a")));
    PeerSslEngineProvider stranger = new PeerSslEngineProvider(peerFlags(other, other.server("stranger")));
    assertThrows(SSLException.class, () -> EngineHandshake.run(stranger.createClientSSLEngine("127.0.0.1", 12380),
        a.createServerSSLEngine("127.0.0.1", 12380)));
  }

  @Test
  void allowedCnIsCheckedOnBothEnds() throws Exception {
    TestCerts ca = TestCerts.create(dir);
    PeerSslEngineProvider strict = new PeerSslEngineProvider(peerFlags(ca, ca.server("member-a"),
        "peer-cert-allowed-cn", "member-a"));
    PeerSslEngineProvider b = new PeerSslEngineProvider(peerFlags(ca, ca.server("member-b")));
    SSLException e = assertThrows(SSLException.class, () -> EngineHandshake.run(
        b.createClientSSLEngine("127.0.0.1", 12380), strict.createServerSSLEngine("127.0.0.1", 12380)));
    assertTrue(String.valueOf(e.getMessage()).contains("client certificate authentication failed")
        || String.valueOf(e.getCause()).contains("client certificate authentication failed"), String.valueOf(e));
    // etcd's VerifyPeerCertificate also runs when the strict member dials: member-b's server cert fails it.
    assertThrows(SSLException.class, () -> EngineHandshake.run(
        strict.createClientSSLEngine("127.0.0.1", 12380), b.createServerSSLEngine("127.0.0.1", 12380)));
  }

  @Test
  void peerAutoTlsMakesItsCertificateUnderTheDataDir() throws Exception {
    Config auto = ConfigFactory.parseMap(Map.of("peer-auto-tls", true, "data-dir", dir.toString(),
        "listen-peer-urls", "https://127.0.0.1:12380,https://localhost:12380"));
    PeerSslEngineProvider a = new PeerSslEngineProvider(auto);
    PeerSslEngineProvider b = new PeerSslEngineProvider(auto);
    assertTrue(Files.exists(dir.resolve("fixtures/peer/cert.pem")));
    EngineHandshake.run(b.createClientSSLEngine("127.0.0.1", 12380), a.createServerSSLEngine("127.0.0.1", 12380));
  }
}
