package io.akkaetcd.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.akkaetcd.testlog.CapturedLogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A real Prometheus (Debian's {@code prometheus}) as a process on a free loopback port, scraping
 * {@code targets} every second under job {@code akka-etcd} (as deploy/monitoring/prometheus.yml
 * names it), queried through its HTTP API. Its TSDB lives in a temporary directory removed by
 * {@link #close()}, which kills the process.
 */
final class Prometheus implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/bin/prometheus");

  /** One sample of an instant vector: its labels and value. */
  record Sample(Map<String, String> labels, double value) {
    String instance() {
      return labels.getOrDefault("instance", "");
    }
  }

  private final Path dir;
  private final Process process;
  private final String url;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Prometheus(Path dir, Process process, String url) {
    this.dir = dir;
    this.process = process;
    this.url = url;
  }

  /** Starts Prometheus scraping {@code targets} (host:port) and returns once it is ready. */
  static Prometheus start(List<String> targets) throws IOException {
    Path dir = Files.createTempDirectory("prometheus");
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, """
        global:
          scrape_interval: 1s
          scrape_timeout: 1s
          evaluation_interval: 1s
        scrape_configs:
          - job_name: akka-etcd
            static_configs:
              - targets: [%s]
        """.formatted(String.join(", ", targets.stream().map(t -> "'" + t + "'").toList())));
    Path log = dir.resolve("prometheus.log");
    CapturedLogs.attach("prometheus", log);
    int port = Ports.free();
    Process p = new ProcessBuilder(BINARY.toString(), "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
        "--log.level=warn").redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Prometheus prometheus = new Prometheus(dir, p, "http://127.0.0.1:" + port);
    try {
      prometheus.awaitReady(Duration.ofSeconds(60));
    } catch (RuntimeException e) {
      prometheus.close();
      throw e;
    }
    return prometheus;
  }

  private void awaitReady(Duration within) {
    Instant deadline = Instant.now().plus(within);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("prometheus exited with " + process.exitValue());
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/-/ready"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // polling, bounded by the deadline
    }
    throw new IllegalStateException("prometheus not ready within " + within);
  }

  /** The instant vector {@code expr} evaluates to now (PromQL via /api/v1/query). */
  List<Sample> query(String expr) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/query?query="
          + URLEncoder.encode(expr, UTF_8))).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString(UTF_8));
      JsonObject body = JsonParser.parseString(r.body()).getAsJsonObject();
      if (r.statusCode() != 200 || !"success".equals(body.get("status").getAsString())) {
        throw new AssertionError(expr + ": " + r.statusCode() + " " + r.body());
      }
      List<Sample> samples = new ArrayList<>();
      for (JsonElement e : body.getAsJsonObject("data").getAsJsonArray("result")) {
        JsonObject o = e.getAsJsonObject();
        Map<String, String> labels = new TreeMap<>();
        o.getAsJsonObject("metric").entrySet().forEach(l -> labels.put(l.getKey(), l.getValue().getAsString()));
        // Prometheus writes values as strings, "NaN" and "+Inf" among them.
        samples.add(new Sample(labels, Double.parseDouble(o.getAsJsonArray("value").get(1).getAsString()
            .replace("+Inf", "Infinity").replace("-Inf", "-Infinity"))));
      }
      return samples;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Polls {@code expr} until its result satisfies {@code until}, within {@code within}; returns it. */
  List<Sample> await(String expr, Predicate<List<Sample>> until, Duration within) {
    Instant deadline = Instant.now().plus(within);
    List<Sample> last = List.of();
    while (Instant.now().isBefore(deadline)) {
      last = query(expr);
      if (until.test(last)) {
        return last;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(250_000_000L); // a quarter of the scrape interval
    }
    throw new AssertionError(expr + " not as expected within " + within + ", last: " + last);
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ServerProcess.deleteTree(dir);
  }
}
