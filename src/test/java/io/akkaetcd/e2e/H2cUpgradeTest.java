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
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The JDK's HttpClient on an http:// URL asks to upgrade to h2c. etcd's client port (Go's
 * net/http) ignores that and answers in HTTP/1.1; akka-etcd does the same. Upgrading instead made
 * the JDK client (and curl --http2) misread a large first response such as /metrics.
 */
class H2cUpgradeTest {
  private static final int CONNECTIONS = 20;

  @ParameterizedTest
  @EnumSource(ServerProcess.Kind.class)
  void answersUpgradeRequestsInHttp11(ServerProcess.Kind kind) throws Exception {
    assumeTrue(kind == ServerProcess.Kind.AKKA_ETCD || Files.isExecutable(Path.of("/usr/bin/etcd")),
        "etcd is not installed (Debian's etcd-server)");
    try (ServerProcess server = ServerProcess.start(kind, List.of())) {
      for (int i = 0; i < CONNECTIONS; i++) {
        // A client of its own each time: the upgrade is asked for on a new connection.
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> metrics = client.send(request(server, "/metrics").GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_1_1, metrics.version());
        assertEquals(200, metrics.statusCode());
        // etcd writes 1, the Prometheus Java client 1.0: the same sample to every parser
        assertTrue(metrics.body().matches("(?s).*\netcd_server_has_leader 1(\\.0)?\n.*"), "whole /metrics body");
        assertTrue(metrics.body().endsWith("\n"), "whole /metrics body");
        // The same client again, now on the kept HTTP/1.1 connection: a gateway call.
        HttpResponse<String> range = client.send(request(server, "/v3/kv/range")
            .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"YQ==\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(HttpClient.Version.HTTP_1_1, range.version());
        assertEquals(200, range.statusCode(), range.body());
        assertTrue(range.body().startsWith("{\"header\":{\"cluster_id\":"), range.body());
      }
    }
  }

  private static HttpRequest.Builder request(ServerProcess server, String path) {
    return HttpRequest.newBuilder(URI.create(server.clientUrl() + path)).timeout(Duration.ofSeconds(10));
  }
}
