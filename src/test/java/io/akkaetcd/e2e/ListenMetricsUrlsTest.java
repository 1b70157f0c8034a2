package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * --listen-metrics-urls serves /metrics and /health only, as etcd 3.4's
 * etcdhttp.HandleMetricsHealth mux: the gateway, /version and 3.5's /livez answer Go's 404 there.
 * Differential: the same requests to etcd 3.4.23's metrics listener get the same answers.
 */
class ListenMetricsUrlsTest {
  /** Method, path and body; the gateway's paths are POSTs with JSON. */
  private static final List<String[]> REQUESTS = List.of(
      new String[] {"GET", "/health", ""},
      new String[] {"POST", "/health", ""},
      new String[] {"GET", "/version", ""},
      new String[] {"GET", "/livez", ""},
      new String[] {"POST", "/v3/kv/range", "{\"key\":\"YQ==\"}"},
      new String[] {"POST", "/v3/kv/put", "{\"key\":\"YQ==\",\"value\":\"Yg==\"}"},
      new String[] {"GET", "/metrics/x", ""});

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void servesMetricsAndHealthOnly() throws Exception {
    String metricsUrl = "http://127.0.0.1:" + Ports.free();
    try (EmbeddedMember m = new EmbeddedMember("--listen-metrics-urls", metricsUrl)) {
      HttpResponse<String> metrics = get(metricsUrl + "/metrics");
      assertEquals(200, metrics.statusCode());
      assertTrue(metrics.body().contains("\netcd_server_has_leader 1"), metrics.body());
      Map<String, String> answers = answers(metricsUrl);
      assertEquals("200 {\"health\":\"true\"}", answers.get("GET /health"));
      assertEquals("404 404 page not found\n", answers.get("POST /v3/kv/put"));
      // The client port still serves the gateway: the metrics listener is in addition to it.
      assertEquals(200, send("POST", m.url() + "/v3/kv/range", "{\"key\":\"YQ==\"}").statusCode());
    }
  }

  @Test
  void answersAsEtcd34() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/etcd")), "etcd is not installed (Debian's etcd-server)");
    String etcdUrl = "http://127.0.0.1:" + Ports.free();
    Map<String, String> etcd;
    try (ServerProcess e = ServerProcess.start(ServerProcess.Kind.ETCD, List.of("--listen-metrics-urls", etcdUrl))) {
      assertEquals(200, get(etcdUrl + "/metrics").statusCode());
      etcd = answers(etcdUrl);
    }
    String ourUrl = "http://127.0.0.1:" + Ports.free();
    try (EmbeddedMember m = new EmbeddedMember("--listen-metrics-urls", ourUrl)) {
      assertEquals(etcd, answers(ourUrl));
    }
  }

  /** "METHOD path" to "status body" for every request of {@link #REQUESTS}. */
  private Map<String, String> answers(String base) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    for (String[] r : REQUESTS) {
      HttpResponse<String> resp = send(r[0], base + r[1], r[2]);
      out.put(r[0] + " " + r[1], resp.statusCode() + " " + resp.body());
    }
    return out;
  }

  private HttpResponse<String> get(String url) throws Exception {
    return send("GET", url, "");
  }

  private HttpResponse<String> send(String method, String url, String body) throws Exception {
    HttpRequest.BodyPublisher publisher = body.isEmpty() ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(body);
    return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, publisher)
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
