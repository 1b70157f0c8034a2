package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.akkaetcd.tls.TestCerts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client TLS through Debian's etcdctl, against real etcd 3.4 and akka-etcd started with the same
 * flags and the same certificate files: each case must give the same stdout, stderr (less
 * etcdctl's retry log lines) and exit code. Cases: client certificates required (a CA file alone
 * asks for them, as in 3.4), no --cacert, no client certificate, a client certificate of an
 * unknown CA, plain text against the TLS port and TLS against a plain port of the same member,
 * server-only TLS, and {@code --auto-tls}. Then akka-etcd alone: certificate rotation, with jetcd
 * over TLS.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientTlsTest {
  /** Failing dials give up quickly; both servers get the same. */
  private static final List<String> QUICK = List.of("--dial-timeout=2s", "--command-timeout=3s");

  @TempDir static Path tmp;
  private TestCerts ca;
  private TestCerts.Issued server;
  private TestCerts.Issued root;
  private TestCerts.Issued stranger;

  @BeforeAll
  void certificates() {
    ca = TestCerts.create(tmp.resolve("ca"));
    server = ca.server("server");
    root = ca.client("root");
    TestCerts other = TestCerts.create(tmp.resolve("other"), "other CA");
    stranger = other.client("root");
  }

  private List<String> withClientCert() {
    return ServerProcess.Tls.etcdctlAs(ca, root);
  }

  /**
   * One etcdctl invocation: its TLS flags and its command (the endpoint is each server's), and
   * whether it succeeds (checked on both, so that a case failing on both for an unrelated reason
   * does not pass).
   */
  private record Case(String name, boolean succeeds, boolean plainPort, List<String> tlsFlags, List<String> command) {}

  /**
   * Starts etcd, then akka-etcd, with {@code tls} ({@code plainPort}: each also listens on a
   * second, plain URL) and requires the same result of every case from both.
   */
  private void sameAsEtcd(ServerProcess.Tls tls, boolean plainPort, List<Case> cases) {
    List<List<Etcdctl.Result>> results = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      int plain = plainPort ? Ports.free() : 0;
      try (ServerProcess s = ServerProcess.start(kind, tls.withPlainClientPort(plain), List.of())) {
        List<Etcdctl.Result> r = new ArrayList<>();
        for (Case c : cases) {
          String endpoint = c.plainPort() ? "127.0.0.1:" + plain : s.endpoint();
          List<String> args = new ArrayList<>(c.tlsFlags());
          args.addAll(QUICK);
          args.addAll(c.command());
          Etcdctl.Result raw = Etcdctl.run(endpoint, null, args);
          r.add(EtcdctlDifferentialTest.normalize(new Etcdctl.Result(raw.stdout().replace(endpoint, "${ENDPOINT}"),
              raw.stderr().replace(endpoint, "${ENDPOINT}"), raw.exit())));
        }
        results.add(r);
      }
    }
    List<String> mismatches = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      if (Boolean.getBoolean("tls.show")) {
        System.out.println(cases.get(i).name() + "\n" + results.get(0).get(i).all() + results.get(1).get(i).all());
      }
      Etcdctl.Result etcd = results.get(0).get(i);
      Etcdctl.Result akka = results.get(1).get(i);
      if (!etcd.equals(akka) || (etcd.exit() == 0) != cases.get(i).succeeds()) {
        mismatches.add(cases.get(i).name() + "\n== etcd:\n" + etcd.all() + "== akka-etcd:\n" + akka.all());
      }
    }
    if (!mismatches.isEmpty()) {
      fail(mismatches.size() + " of " + cases.size() + " cases differ:\n\n" + String.join("\n", mismatches));
    }
  }

  private ServerProcess.Tls mutual() {
    return ServerProcess.Tls.clientCerts(ca, server, root);
  }

  @Test
  void clientCertificatesRequired() {
    List<String> noCa = List.of("--cert", root.cert().toString(), "--key", root.key().toString());
    List<String> noCert = List.of("--cacert", ca.caFile().toString());
    List<String> unknownCa = List.of("--cacert", ca.caFile().toString(), "--cert", stranger.cert().toString(),
        "--key", stranger.key().toString());
    sameAsEtcd(mutual(), true, List.of(
        new Case("put with a client certificate", true, false, withClientCert(), List.of("put", "k", "v")),
        new Case("get with a client certificate", true, false, withClientCert(), List.of("get", "k")),
        new Case("no --cacert", false, false, noCa, List.of("get", "k")),
        new Case("no client certificate", false, false, noCert, List.of("get", "k")),
        new Case("client certificate of an unknown CA", false, false, unknownCa, List.of("get", "k")),
        new Case("plain text on the TLS port", false, false, List.of(), List.of("get", "k")),
        new Case("TLS on the plain port", false, true, withClientCert(), List.of("get", "k")),
        new Case("plain text on the plain port", true, true, List.of(), List.of("get", "k"))));
  }

  @Test
  void serverOnlyTls() {
    List<String> caOnly = List.of("--cacert", ca.caFile().toString());
    sameAsEtcd(ServerProcess.Tls.serverOnly(ca, server), false, List.of(
        new Case("put without a client certificate", true, false, caOnly, List.of("put", "k", "v")),
        new Case("get with a client certificate it does not ask for", true, false, withClientCert(), List.of("get", "k")),
        new Case("endpoint health", true, false, caOnly, List.of("endpoint", "health")),
        new Case("no --cacert", false, false, List.of("--insecure-transport=false"), List.of("get", "k"))));
  }

  @Test
  void autoTls() {
    List<String> skipVerify = List.of("--insecure-transport=false", "--insecure-skip-tls-verify");
    ServerProcess.Tls tls = new ServerProcess.Tls("https", "http", List.of("--auto-tls"), skipVerify);
    sameAsEtcd(tls, false, List.of(
        new Case("put without verifying", true, false, skipVerify, List.of("put", "k", "v")),
        new Case("get without verifying", true, false, skipVerify, List.of("get", "k")),
        new Case("the test CA does not vouch for it", false, false, List.of("--cacert", ca.caFile().toString()),
            List.of("get", "k"))));
  }

  /**
   * Rotation: the files replaced while the member runs, new connections get the new certificate
   * (read from a fresh JDK handshake), and a jetcd client connected before keeps working.
   */
  @Test
  void rotatedCertificateServesNewConnections() throws Exception {
    TestCerts.Issued first = ca.issue("rotating", "first", List.of("127.0.0.1", "localhost"), true,
        TestCerts.KeyFormat.EC_PKCS8);
    List<String> caOnly = List.of("--cacert", ca.caFile().toString());
    ServerProcess.Tls tls = new ServerProcess.Tls("https", "http", List.of("--cert-file", first.cert().toString(),
        "--key-file", first.key().toString()), caOnly);
    try (ServerProcess s = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, tls, List.of());
         Client client = Client.builder().endpoints(s.clientUrl())
             .sslContext(b -> b.trustManager(ca.caFile().toFile())).build()) {
      ByteSequence key = bytes("k");
      client.getKVClient().put(key, bytes("before")).get(30, TimeUnit.SECONDS);
      assertEquals(first.certificate().getSerialNumber(), servedSerial(s));

      TestCerts.Issued second = ca.issue("rotating", "second", List.of("127.0.0.1", "localhost"), true,
          TestCerts.KeyFormat.EC_PKCS8);
      Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
      while (!servedSerial(s).equals(second.certificate().getSerialNumber())) {
        assertTrue(Instant.now().isBefore(deadline), "still the first certificate after 20 s");
      }
      client.getKVClient().put(key, bytes("after")).get(30, TimeUnit.SECONDS);
      assertEquals("after", client.getKVClient().get(key).get(30, TimeUnit.SECONDS).getKvs().get(0).getValue()
          .toString(StandardCharsets.UTF_8), "the connection opened before the rotation");
      Etcdctl.Result get = s.ctl("get", "k", "--print-value-only");
      assertEquals("after\n", get.stdout(), get.all());
      // HTTP shares the TLS port with gRPC.
      HttpResponse<String> health = HttpClient.newBuilder().sslContext(trusting()).build().send(
          HttpRequest.newBuilder(URI.create(s.clientUrl() + "/health")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());
      assertTrue(health.body().contains("\"health\":\"true\""), health.body());
    }
  }

  /** The serial number of the certificate a new TLS connection to {@code s} is served (no session reused). */
  private BigInteger servedSerial(ServerProcess s) throws Exception {
    String[] hostPort = s.endpoint().split(":");
    try (SSLSocket socket = (SSLSocket) trusting().getSocketFactory().createSocket(hostPort[0],
        Integer.parseInt(hostPort[1]))) {
      SSLParameters p = socket.getSSLParameters();
      p.setApplicationProtocols(new String[] {"h2"});
      socket.setSSLParameters(p);
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  /** A new client context trusting the test CA only. */
  private SSLContext trusting() throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca.caCertificate());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
