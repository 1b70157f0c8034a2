package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.errors.StartupException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TlsInfo from etcd's flags, and etcd 3.4's start-up errors word for word. */
class TlsInfoTest {
  @TempDir
  Path dir;

  @Test
  void clientFlags() {
    TlsInfo info = TlsInfo.client(Map.of("cert-file", "/c.pem", "key-file", "/k.pem", "trusted-ca-file", "/ca.pem",
        "client-cert-auth", "true", "client-crl-file", "/crl.pem", "client-cert-allowed-hostname", "h.example",
        "auto-tls", "false", "cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256",
        "peer-cert-file", "/peer.pem"));
    assertEquals(Path.of("/c.pem"), info.certFile());
    assertEquals(Path.of("/k.pem"), info.keyFile());
    assertEquals(Path.of("/ca.pem"), info.trustedCaFile());
    assertTrue(info.clientCertAuth());
    assertEquals(Path.of("/crl.pem"), info.crlFile());
    assertEquals("h.example", info.allowedHostname());
    assertEquals("", info.allowedCn());
    assertEquals(List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"), info.cipherSuites());
    assertEquals("cert = /c.pem, key = /k.pem, trusted-ca = /ca.pem, client-cert-auth = true, crl-file = /crl.pem",
        info.toString());
  }

  @Test
  void peerFlagsRoundTripThroughTheEngineProvidersConfig() {
    TlsInfo info = TlsInfo.peer(Map.of("peer-cert-file", "/p.pem", "peer-key-file", "/pk.pem",
        "peer-trusted-ca-file", "/ca.pem", "peer-client-cert-auth", "true", "peer-crl-file", "/crl.pem",
        "peer-cert-allowed-cn", "member", "peer-auto-tls", "true", "cipher-suites", "TLS_AES_128_GCM_SHA256"));
    assertEquals(info, TlsInfo.peer(info.peerFlags()));
    TlsInfo none = TlsInfo.peer(Map.of());
    assertEquals(none, TlsInfo.peer(none.peerFlags()));
    assertFalse(none.peerFlags().containsKey("peer-cert-file"), "unset files are left out");
  }

  @Test
  void peerFlags() {
    TlsInfo info = TlsInfo.peer(Map.of("peer-cert-file", "/p.pem", "peer-key-file", "/pk.pem",
        "peer-trusted-ca-file", "/ca.pem", "peer-client-cert-auth", "1", "peer-cert-allowed-cn", "m1",
        "peer-crl-file", "/crl.pem", "peer-auto-tls", "t", "cert-file", "/client.pem"));
    assertEquals(Path.of("/p.pem"), info.certFile());
    assertTrue(info.clientCertAuth());
    assertEquals("m1", info.allowedCn());
    assertTrue(info.autoTls());
    assertFalse(info.selfCert());
  }

  @Test
  void noFlagsIsPlainText() {
    TlsInfo info = TlsInfo.client(Map.of());
    assertTrue(info.empty());
    assertFalse(info.requiresClientCert());
    info.checkClientUrl("http://127.0.0.1:2379");
  }

  @Test
  void trustedCaFileAloneRequiresClientCertificates() {
    assertTrue(TlsInfo.client(Map.of("trusted-ca-file", "/ca.pem")).requiresClientCert());
    assertTrue(TlsInfo.client(Map.of("client-cert-auth", "true")).requiresClientCert());
  }

  @Test
  void httpsClientUrlWithoutCertificate() {
    StartupException e = assertThrows(StartupException.class,
        () -> TlsInfo.client(Map.of()).checkClientUrl("https://127.0.0.1:2379"));
    assertEquals("TLS key/cert (--cert-file, --key-file) must be provided for client url https://127.0.0.1:2379"
        + " with HTTPS scheme", e.getMessage());
    TlsInfo.client(Map.of("cert-file", "/c.pem", "key-file", "/k.pem")).checkClientUrl("https://127.0.0.1:2379");
  }

  @Test
  void httpsPeerUrlWithoutCertificate() {
    StartupException e = assertThrows(StartupException.class,
        () -> TlsInfo.peer(Map.of()).checkPeerUrl("https://127.0.0.1:2380", "127.0.0.1:2380"));
    assertEquals("cannot listen on TLS for 127.0.0.1:2380: KeyFile and CertFile are not presented", e.getMessage());
  }

  @Test
  void unknownCipherSuite() {
    StartupException e = assertThrows(StartupException.class,
        () -> TlsInfo.client(Map.of("cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_NOPE")));
    assertEquals("unexpected TLS cipher suite \"TLS_NOPE\"", e.getMessage());
  }

  @Test
  void everyGoSuiteNameIsAccepted() {
    // Go's tls.CipherSuites() and tls.InsecureCipherSuites() plus tlsutil's two aliases.
    List<String> go = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
        "TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA",
        "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256");
    assertEquals(go, TlsInfo.client(Map.of("cipher-suites", String.join(",", go))).cipherSuites());
  }

  @Test
  void goNamesMapToJsseNamesThisJvmSupports() throws Exception {
    List<String> supported = List.of(javax.net.ssl.SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
    List<String> jsse = GoCipherSuites.tls12Suites(List.of("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_RSA_WITH_RC4_128_SHA"), supported);
    // TLS 1.3 names are left to the defaults; RC4 is not in this JDK.
    assertEquals(List.of("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), jsse);
  }

  @Test
  void allowedCnAndHostnameAreExclusive() {
    StartupException e = assertThrows(StartupException.class,
        () -> TlsInfo.peer(Map.of("peer-cert-allowed-cn", "m1", "peer-cert-allowed-hostname", "h1")));
    assertEquals("AllowedCN and AllowedHostname are mutually exclusive (cn=\"m1\", hostname=\"h1\")", e.getMessage());
  }

  @Test
  void badBoolean() {
    StartupException e = assertThrows(StartupException.class, () -> TlsInfo.client(Map.of("client-cert-auth", "yes")));
    assertEquals("invalid boolean value \"yes\" for -client-cert-auth: parse error", e.getMessage());
  }

  @Test
  void certificateWithoutKey() {
    StartupException e = assertThrows(StartupException.class,
        () -> TlsConfig.server(TlsInfo.client(Map.of("cert-file", "/c.pem"))));
    assertEquals("KeyFile and CertFile must both be present[key: , cert: /c.pem]", e.getMessage());
  }

  @Test
  void missingAndMismatchedFiles() {
    TestCerts ca = TestCerts.create(dir);
    TestCerts.Issued a = ca.server("a");
    TestCerts.Issued b = ca.server("b");
    Path missing = dir.resolve("missing.pem");
    StartupException e = assertThrows(StartupException.class,
        () -> TlsConfig.server(TlsInfo.client(Map.of("cert-file", missing.toString(), "key-file", a.key().toString()))));
    assertEquals("open " + missing + ": no such file or directory", e.getMessage());
    e = assertThrows(StartupException.class,
        () -> TlsConfig.server(TlsInfo.client(Map.of("cert-file", a.cert().toString(), "key-file", b.key().toString()))));
    assertEquals("tls: private key does not match public key", e.getMessage());
    e = assertThrows(StartupException.class,
        () -> TlsConfig.server(TlsInfo.client(Map.of("cert-file", a.key().toString(), "key-file", a.key().toString()))));
    assertEquals("tls: failed to find any PEM data in certificate input", e.getMessage());
  }

  @Test
  void keyFileWithoutKey() throws Exception {
    TestCerts ca = TestCerts.create(dir);
    TestCerts.Issued a = ca.server("a");
    Files.copy(a.cert(), dir.resolve("nokey.pem"));
    StartupException e = assertThrows(StartupException.class, () -> TlsConfig.server(
        TlsInfo.client(Map.of("cert-file", a.cert().toString(), "key-file", dir.resolve("nokey.pem").toString()))));
    assertEquals("tls: failed to find any PEM data in key input", e.getMessage());
  }
}
