package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Handshakes over loopback sockets between a server from {@link TlsConfig#server} and a plain
 * JDK client, one etcd 3.4 TLS case each: what the client sees and why the server refused.
 */
class TlsHandshakeTest {
  @TempDir
  Path dir;
  TestCerts ca;
  TestCerts.Issued server;

  @BeforeEach
  void certs() {
    ca = TestCerts.create(dir.resolve("ca"));
    server = ca.server("server");
  }

  private Map<String, String> flags(String... pairs) {
    Map<String, String> m = new HashMap<>();
    m.put("cert-file", server.cert().toString());
    m.put("key-file", server.key().toString());
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }

  private TlsEchoServer serve(String... pairs) throws IOException {
    return new TlsEchoServer(TlsConfig.server(TlsInfo.client(flags(pairs))));
  }

  /** The client's view of a refused connection: the handshake or the first exchange fails. */
  private static void assertRefused(JdkClient client, int port, SSLParameters p) {
    try (JdkClient.Connection c = client.connect(port, p)) {
      String answer = c.say("ping");
      assertNull(answer, "the server answered a connection it should have refused");
    } catch (IOException expected) {
      // handshake alert or reset: refused
    }
  }

  @Test
  void serverOnlyTls() throws Exception {
    try (TlsEchoServer s = serve()) {
      JdkClient client = new JdkClient(ca.caCertificate(), null);
      try (JdkClient.Connection c = client.connect(s.port(), null)) {
        assertEquals("echo ping", c.say("ping"));
        assertEquals(server.certificate(), c.serverCert());
        assertEquals("TLSv1.3", c.socket().getSession().getProtocol());
      }
      assertEquals("-", s.nextOutcome().user());
    }
  }

  @Test
  void trustedCaAloneRequiresAClientCertificate() throws Exception {
    // etcd 3.4: RequireAndVerifyClientCert if --trusted-ca-file OR --client-cert-auth.
    try (TlsEchoServer s = serve("trusted-ca-file", ca.caFile().toString())) {
      assertRefused(new JdkClient(ca.caCertificate(), null), s.port(), null);
      assertTrue(s.nextOutcome().failure() != null);

      JdkClient withCert = new JdkClient(ca.caCertificate(), ca.client("root"));
      try (JdkClient.Connection c = withCert.connect(s.port(), null)) {
        assertEquals("echo ping", c.say("ping"));
      }
      assertEquals("root", s.nextOutcome().user());
    }
  }

  @Test
  void clientCertAuthWithoutCaFileUsesTheSystemCas() throws Exception {
    try (TlsEchoServer s = serve("client-cert-auth", "true")) {
      assertRefused(new JdkClient(ca.caCertificate(), ca.client("root"), true), s.port(), null);
      String why = s.nextOutcome().failureText();
      assertTrue(why.contains("PKIX"), why);
    }
  }

  @Test
  void certificateFromAnUnknownCaIsRefused() throws Exception {
    TestCerts unknown = TestCerts.create(dir.resolve("unknown"), "unknown CA");
    try (TlsEchoServer s = serve("trusted-ca-file", ca.caFile().toString(), "client-cert-auth", "true")) {
      // As Go's, the JDK client sends no certificate the server's CA list does not name ...
      assertRefused(new JdkClient(ca.caCertificate(), unknown.client("root")), s.port(), null);
      String why = s.nextOutcome().failureText();
      assertTrue(why.contains("Empty client certificate chain"), why);
      // ... and one sent anyway fails verification.
      assertRefused(new JdkClient(ca.caCertificate(), unknown.client("root"), true), s.port(), null);
      why = s.nextOutcome().failureText();
      assertTrue(why.contains("PKIX"), why);
    }
  }

  @Test
  void serverFromAnUnknownCaIsRefusedByTheClient() throws Exception {
    TestCerts unknown = TestCerts.create(dir.resolve("unknown"), "unknown CA");
    try (TlsEchoServer s = serve()) {
      assertRefused(new JdkClient(unknown.caCertificate(), null), s.port(), null);
    }
  }

  @Test
  void revokedClientCertificateIsRefusedThroughTheCrl() throws Exception {
    TestCerts.Issued good = ca.client("good");
    TestCerts.Issued revoked = ca.client("revoked");
    Path crl = ca.crl(revoked);
    try (TlsEchoServer s = serve("trusted-ca-file", ca.caFile().toString(), "client-crl-file", crl.toString())) {
      assertRefused(new JdkClient(ca.caCertificate(), revoked), s.port(), null);
      // etcd formats the serial's big-endian bytes with %x: two digits a byte, so a leading 0 when odd.
      byte[] serial = revoked.certificate().getSerialNumber().toByteArray();
      int sign = serial.length > 1 && serial[0] == 0 ? 1 : 0;
      String expected = "transport: certificate serial "
          + java.util.HexFormat.of().formatHex(serial, sign, serial.length) + " revoked";
      assertTrue(s.nextOutcome().failureText().contains(expected), expected);

      try (JdkClient.Connection c = new JdkClient(ca.caCertificate(), good).connect(s.port(), null)) {
        assertEquals("echo ping", c.say("ping"));
      }
      assertEquals("good", s.nextOutcome().user());

      // The CRL is read per connection: revoking "good" now refuses its next connection.
      ca.crl(revoked, good);
      assertRefused(new JdkClient(ca.caCertificate(), good), s.port(), null);
      assertTrue(s.nextOutcome().failureText().contains("revoked"));
    }
  }

  @Test
  void allowedHostnameMismatchIsRefused() throws Exception {
    TestCerts.Issued named = ca.issue("named", "named", List.of("peer.example.com"), false, TestCerts.KeyFormat.EC_PKCS8);
    try (TlsEchoServer s = serve("trusted-ca-file", ca.caFile().toString(),
        "client-cert-allowed-hostname", "other.example.com")) {
      assertRefused(new JdkClient(ca.caCertificate(), named), s.port(), null);
      assertTrue(s.nextOutcome().failureText().contains("client certificate authentication failed"));
    }
    try (TlsEchoServer s = serve("trusted-ca-file", ca.caFile().toString(),
        "client-cert-allowed-hostname", "PEER.example.com")) {
      try (JdkClient.Connection c = new JdkClient(ca.caCertificate(), named).connect(s.port(), null)) {
        assertEquals("echo ping", c.say("ping"));
      }
      assertEquals("named", s.nextOutcome().user());
    }
  }

  @Test
  void allowedCnMismatchIsRefusedOnThePeerSide() throws Exception {
    Map<String, String> peer = Map.of("peer-cert-file", server.cert().toString(), "peer-key-file",
        server.key().toString(), "peer-trusted-ca-file", ca.caFile().toString(), "peer-cert-allowed-cn", "member-a");
    try (TlsEchoServer s = new TlsEchoServer(TlsConfig.server(TlsInfo.peer(peer)))) {
      assertRefused(new JdkClient(ca.caCertificate(), ca.client("member-b")), s.port(), null);
      assertTrue(s.nextOutcome().failureText().contains("client certificate authentication failed"));
      try (JdkClient.Connection c = new JdkClient(ca.caCertificate(), ca.client("member-a")).connect(s.port(), null)) {
        assertEquals("echo ping", c.say("ping"));
      }
      assertEquals("member-a", s.nextOutcome().user());
    }
  }

  @Test
  void alpnNegotiatesH2AndLetsHttp1ClientsIn() throws Exception {
    try (TlsEchoServer s = serve()) {
      JdkClient client = new JdkClient(ca.caCertificate(), null);
      SSLParameters both = new SSLParameters();
      both.setApplicationProtocols(new String[] {"http/1.1", "h2"});
      try (JdkClient.Connection c = client.connect(s.port(), both)) {
        assertEquals("h2", c.socket().getApplicationProtocol());
        assertEquals("echo ping", c.say("ping"));
      }
      SSLParameters http1 = new SSLParameters();
      http1.setApplicationProtocols(new String[] {"http/1.1"});
      try (JdkClient.Connection c = client.connect(s.port(), http1)) {
        assertEquals("", c.socket().getApplicationProtocol()); // Go's http/1.1 fallback: no ALPN
        assertEquals("echo ping", c.say("ping"));
      }
      SSLParameters other = new SSLParameters();
      other.setApplicationProtocols(new String[] {"spdy/3"});
      assertRefused(client, s.port(), other);
    }
  }

  @Test
  void cipherSuiteRestrictionIsHonouredForTls12() throws Exception {
    try (TlsEchoServer s = serve("cipher-suites",
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305")) {
      JdkClient client = new JdkClient(ca.caCertificate(), null);
      SSLParameters tls12 = new SSLParameters(new String[] {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}, new String[] {"TLSv1.2"});
      try (JdkClient.Connection c = client.connect(s.port(), tls12)) {
        assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", c.socket().getSession().getCipherSuite());
      }
      SSLParameters notAllowed = new SSLParameters(new String[] {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
          new String[] {"TLSv1.2"});
      assertRefused(client, s.port(), notAllowed);
      // TLS 1.3 suites are not restricted, as in Go.
      try (JdkClient.Connection c = client.connect(s.port(), null)) {
        assertEquals("TLSv1.3", c.socket().getSession().getProtocol());
      }
    }
  }

  @Test
  void tls11IsRefused() throws Exception {
    try (TlsEchoServer s = serve()) {
      SSLParameters old = new SSLParameters();
      old.setProtocols(new String[] {"TLSv1.1"});
      assertRefused(new JdkClient(ca.caCertificate(), null), s.port(), old);
    }
  }

  @Test
  void tls12SessionsAreResumed() throws Exception {
    try (TlsEchoServer s = serve()) {
      TlsConfig config = TlsConfig.server(TlsInfo.client(flags()));
      assertTrue(config.context().getServerSessionContext().getSessionCacheSize() >= 1000,
          "server session cache: " + config.context().getServerSessionContext().getSessionCacheSize());
      JdkClient client = new JdkClient(ca.caCertificate(), null);
      SSLParameters tls12 = new SSLParameters();
      tls12.setProtocols(new String[] {"TLSv1.2"});
      byte[] first;
      long created;
      try (JdkClient.Connection c = client.connect(s.port(), tls12)) {
        c.say("ping");
        first = c.socket().getSession().getId();
        created = c.socket().getSession().getCreationTime();
      }
      try (JdkClient.Connection c = client.connect(s.port(), tls12)) {
        c.say("ping");
        assertEquals(created, c.socket().getSession().getCreationTime(), "a new session: not resumed");
        assertEquals(java.util.HexFormat.of().formatHex(first),
            java.util.HexFormat.of().formatHex(c.socket().getSession().getId()));
      }
    }
  }

  @Test
  void tls13SessionsAreResumedWithTickets() throws Exception {
    try (TlsEchoServer s = serve()) {
      JdkClient client = new JdkClient(ca.caCertificate(), null);
      long created;
      try (JdkClient.Connection c = client.connect(s.port(), null)) {
        c.say("ping");
        assertEquals("TLSv1.3", c.socket().getSession().getProtocol());
        created = c.socket().getSession().getCreationTime();
      }
      try (JdkClient.Connection c = client.connect(s.port(), null)) {
        c.say("ping");
        assertEquals(created, c.socket().getSession().getCreationTime(), "a new session: not resumed");
      }
      // The control: a client without the ticket gets a session of its own.
      try (JdkClient.Connection c = new JdkClient(ca.caCertificate(), null).connect(s.port(), null)) {
        c.say("ping");
        assertNotEquals(created, c.socket().getSession().getCreationTime());
      }
    }
  }

  @Test
  void rotatedCertificateIsUsedByNewConnectionsWhileOpenOnesKeepWorking() throws Exception {
    try (TlsEchoServer s = serve()) {
      JdkClient client = new JdkClient(ca.caCertificate(), null);
      try (JdkClient.Connection before = client.connect(s.port(), null)) {
        assertEquals("echo one", before.say("one"));
        assertEquals(server.certificate(), before.serverCert());

        TestCerts.Issued rotated = ca.server("server"); // same files, new key and certificate
        assertNotEquals(server.certificate(), rotated.certificate());

        // A fresh client context: no session to resume, so the server must present its certificate.
        try (JdkClient.Connection after = new JdkClient(ca.caCertificate(), null).connect(s.port(), null)) {
          assertEquals(rotated.certificate(), after.serverCert());
          assertEquals("echo two", after.say("two"));
        }
        assertEquals("echo three", before.say("three"));
        assertEquals(server.certificate(), before.serverCert());
      }
    }
  }

  @Test
  void halfRotatedFilesKeepThePreviousPair() throws Exception {
    try (TlsEchoServer s = serve()) {
      // Only the certificate replaced: it does not match the key, so the old pair stays in use.
      TestCerts.Issued other = ca.server("other");
      java.nio.file.Files.copy(other.cert(), server.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      try (JdkClient.Connection c = new JdkClient(ca.caCertificate(), null).connect(s.port(), null)) {
        assertEquals(server.certificate(), c.serverCert());
      }
    }
  }

  @Test
  void rsaAndSec1KeysLoad() throws Exception {
    for (TestCerts.KeyFormat format : TestCerts.KeyFormat.values()) {
      server = ca.issue("server-" + format, "server", List.of("127.0.0.1"), true, format);
      try (TlsEchoServer s = serve();
          JdkClient.Connection c = new JdkClient(ca.caCertificate(), null).connect(s.port(), null)) {
        assertEquals("echo " + format, c.say(format.toString()), format.toString());
        assertEquals(server.certificate(), c.serverCert());
      }
    }
  }
}
