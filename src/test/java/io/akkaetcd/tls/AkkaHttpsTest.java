package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import akka.actor.ActorSystem;
import akka.http.javadsl.ConnectionContext;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.model.AttributeKeys;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client listener's contract for the wiring: Akka HTTP bound with
 * {@code enableHttps(ConnectionContext.httpsServer(() -> config.newEngine(...)))} serves HTTP/2
 * over TLS (ALPN h2) to a client with a certificate, and hands the session to the handler
 * ({@code ssl-session-attribute = on}), whose CN is the user (issue #26 item 3). Here with
 * BoringSSL's engines, as the member serves; {@link JsseAkkaHttpsTest} with the JDK's.
 */
class AkkaHttpsTest {
  @TempDir
  Path dir;
  ActorSystem system;
  ServerBinding binding;
  TestCerts ca;

  @BeforeEach
  void start() {
    system = ActorSystem.create("https", ConfigFactory.parseString("""
        akka.loglevel = WARNING
        akka.http.server.enable-http2 = on
        akka.http.server.preview.enable-http2 = on
        akka.http.server.parsing.ssl-session-attribute = on
        """).withFallback(ConfigFactory.defaultReference()));
    ca = TestCerts.create(dir);
    TestCerts.Issued server = ca.server("server");
    TlsConfig tls = engines(TlsConfig.server(TlsInfo.client(Map.of("cert-file", server.cert().toString(), "key-file",
        server.key().toString(), "trusted-ca-file", ca.caFile().toString()))));
    binding = Http.get(system).newServerAt("127.0.0.1", 0)
        .enableHttps(ConnectionContext.httpsServer(() -> tls.newEngine(null, -1)))
        .bind(AkkaHttpsTest::whoAmI)
        .toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  /** The engines under test: BoringSSL's, as the member's client listeners use where it loads. */
  TlsConfig engines(TlsConfig jsse) {
    TlsConfig boring = jsse.withNativeEngines();
    Assumptions.assumeTrue(boring.nativeEngines(), "no native TLS on this platform");
    return boring;
  }

  private static CompletableFuture<HttpResponse> whoAmI(HttpRequest request) {
    String user = request.getAttribute(AttributeKeys.sslSession)
        .flatMap(info -> CertIdentity.user(info.getSession())).orElse("-");
    return CompletableFuture.completedFuture(HttpResponse.create().withEntity(user));
  }

  @AfterEach
  void stop() throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private HttpClient client(TestCerts.Issued cert) throws Exception {
    return client(cert, HttpClient.Version.HTTP_2);
  }

  private HttpClient client(TestCerts.Issued cert, HttpClient.Version version) throws Exception {
    return HttpClient.newBuilder().sslContext(new JdkClient(ca.caCertificate(), cert).context())
        .version(version).connectTimeout(Duration.ofSeconds(10)).build();
  }

  @Test
  void http1ClientsGetHttp1() throws Exception {
    java.net.http.HttpResponse<String> r = client(ca.client("root"), HttpClient.Version.HTTP_1_1).send(
        java.net.http.HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + binding.localAddress().getPort() + "/"))
            .build(), BodyHandlers.ofString());
    assertEquals(HttpClient.Version.HTTP_1_1, r.version());
    assertEquals("root", r.body());
  }

  @Test
  void http2OverTlsWithTheCertificateCnAsUser() throws Exception {
    java.net.http.HttpResponse<String> r = client(ca.client("root")).send(java.net.http.HttpRequest.newBuilder(
        URI.create("https://127.0.0.1:" + binding.localAddress().getPort() + "/")).build(), BodyHandlers.ofString());
    assertEquals(HttpClient.Version.HTTP_2, r.version());
    assertEquals("root", r.body());
  }

  @Test
  void noClientCertificateNoAnswer() throws Exception {
    HttpClient anonymous = client(null);
    assertThrows(IOException.class, () -> anonymous.send(java.net.http.HttpRequest.newBuilder(
        URI.create("https://127.0.0.1:" + binding.localAddress().getPort() + "/")).build(), BodyHandlers.ofString()));
  }
}
