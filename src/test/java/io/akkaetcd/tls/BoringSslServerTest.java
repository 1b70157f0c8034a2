package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client listeners' BoringSSL engines (issue #26, new TLS connections per second), shaking
 * hands in memory with a JDK client engine: they keep TlsConfig's rules (ALPN as Akka learns it,
 * client certificates, the CRL, rotation, cipher suites), and JSSE serves where they cannot.
 */
class BoringSslServerTest {
  @TempDir
  Path dir;
  TestCerts ca;
  TestCerts.Issued server;

  @BeforeEach
  void certs() {
    ca = TestCerts.create(dir.resolve("ca"));
    server = ca.server("server");
  }

  private TlsConfig serve(String... pairs) {
    Map<String, String> m = new HashMap<>();
    m.put("cert-file", server.cert().toString());
    m.put("key-file", server.key().toString());
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    TlsConfig config = TlsConfig.server(TlsInfo.client(m)).withNativeEngines();
    org.junit.jupiter.api.Assumptions.assumeTrue(config.nativeEngines(), "no native TLS on this platform");
    return config;
  }

  private SSLEngine client(TestCerts.Issued cert, String... alpn) throws Exception {
    SSLEngine engine = new JdkClient(ca.caCertificate(), cert).context().createSSLEngine("127.0.0.1", 2379);
    engine.setUseClientMode(true);
    SSLParameters p = engine.getSSLParameters();
    p.setApplicationProtocols(alpn);
    engine.setSSLParameters(p);
    return engine;
  }

  /** The protocols the server engine reports to an Akka-style selector once its handshake is done. */
  private static List<List<String>> reported(SSLEngine server) {
    List<List<String>> calls = new ArrayList<>();
    server.setHandshakeApplicationProtocolSelector((e, offered) -> {
      calls.add(List.copyOf(offered));
      return offered.isEmpty() ? "" : offered.get(0);
    });
    return calls;
  }

  @Test
  void h2IsChosenNativelyAndReportedToAkka() throws Exception {
    SSLEngine s = serve().newEngine(null, -1);
    List<List<String>> calls = reported(s);
    SSLEngine c = client(null, "http/1.1", "h2");
    EngineHandshake.run(c, s);
    assertEquals("h2", c.getApplicationProtocol());
    assertEquals(List.of(List.of("h2")), calls);
    assertEquals("TLSv1.3", s.getSession().getProtocol());
  }

  @Test
  void http1OnlyClientsGetNoAlpnAsFromGo() throws Exception {
    SSLEngine s = serve().newEngine(null, -1);
    List<List<String>> calls = reported(s);
    SSLEngine c = client(null, "http/1.1");
    EngineHandshake.run(c, s);
    assertEquals("", c.getApplicationProtocol());
    assertEquals(List.of(List.of()), calls);
  }

  @Test
  void clientCertificateIsRequiredVerifiedAndItsCnSeen() throws Exception {
    TlsConfig config = serve("trusted-ca-file", ca.caFile().toString());
    SSLEngine s = config.newEngine(null, -1);
    EngineHandshake.run(client(ca.client("root"), "h2"), s);
    assertEquals("root", CertIdentity.user(s.getSession()).orElseThrow());

    assertThrows(SSLException.class, () -> EngineHandshake.run(client(null, "h2"), config.newEngine(null, -1)));
    TestCerts stranger = TestCerts.create(dir.resolve("other-ca"));
    assertThrows(SSLException.class,
        () -> EngineHandshake.run(client(stranger.client("root"), "h2"), config.newEngine(null, -1)));
  }

  @Test
  void revokedClientCertificateIsRefused() throws Exception {
    TestCerts.Issued root = ca.client("root");
    TlsConfig config = serve("trusted-ca-file", ca.caFile().toString(), "client-crl-file", ca.crl(root).toString());
    assertThrows(SSLException.class, () -> EngineHandshake.run(client(root, "h2"), config.newEngine(null, -1)));
    EngineHandshake.run(client(ca.client("other"), "h2"), config.newEngine(null, -1));
  }

  @Test
  void rotatedCertificateIsPresentedToNewConnections() throws Exception {
    TlsConfig config = serve();
    SSLEngine before = client(null, "h2");
    EngineHandshake.run(before, config.newEngine(null, -1));
    assertEquals(server.certificate(), before.getSession().getPeerCertificates()[0]);

    TestCerts.Issued rotated = ca.server("server"); // same files, new key and certificate
    assertNotEquals(server.certificate(), rotated.certificate());
    SSLEngine after = client(null, "h2");
    EngineHandshake.run(after, config.newEngine(null, -1));
    assertEquals(rotated.certificate(), (X509Certificate) after.getSession().getPeerCertificates()[0]);
  }

  @Test
  void cipherSuitesRestrictTls12() throws Exception {
    TlsConfig config = serve("cipher-suites", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
    SSLEngine c = client(null, "h2");
    c.setEnabledProtocols(new String[] {"TLSv1.2"});
    EngineHandshake.run(c, config.newEngine(null, -1));
    assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", c.getSession().getCipherSuite());

    SSLEngine refused = client(null, "h2");
    refused.setEnabledProtocols(new String[] {"TLSv1.2"});
    refused.setEnabledCipherSuites(new String[] {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"});
    assertThrows(SSLException.class, () -> EngineHandshake.run(refused, config.newEngine(null, -1)));
    // TLS 1.3 suites are not restricted, as in Go.
    SSLEngine tls13 = client(null, "h2");
    EngineHandshake.run(tls13, config.newEngine(null, -1));
    assertEquals("TLSv1.3", tls13.getSession().getProtocol());
  }

  @Test
  void tls11IsRefused() throws Exception {
    SSLEngine c = client(null, "h2");
    c.setEnabledProtocols(new String[] {"TLSv1.1"});
    SSLEngine s = serve().newEngine(null, -1);
    assertThrows(SSLException.class, () -> EngineHandshake.run(c, s));
  }

  @Test
  void jsseServesWhenSwitchedOff() {
    String before = System.setProperty(BoringSslServer.PROPERTY, "false");
    try {
      TlsConfig config = TlsConfig.server(TlsInfo.client(Map.of("cert-file", server.cert().toString(),
          "key-file", server.key().toString()))).withNativeEngines();
      assertTrue(!config.nativeEngines());
      assertEquals("sun.security.ssl.SSLEngineImpl", config.newEngine(null, -1).getClass().getName());
    } finally {
      if (before == null) {
        System.clearProperty(BoringSslServer.PROPERTY);
      } else {
        System.setProperty(BoringSslServer.PROPERTY, before);
      }
    }
  }
}
