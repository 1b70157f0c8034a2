package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every metric that deploy/monitoring's alert rules and dashboards query exists: ours
 * ({@code akka_etcd_*}) on a running member, etcd's either on a running member or on a running
 * etcd 3.4, both with --metrics extensive. So a renamed metric or a guessed name fails here.
 */
class MonitoringKitNamesTest {
  private static final Path KIT = Path.of("deploy/monitoring");
  /** A metric name among the families the kit can mean; label names (grpc_code, ...) are cut first. */
  private static final Pattern NAME = Pattern.compile("\\b(?:akka_etcd|etcd|grpc|process|go|jvm)_[a-zA-Z0-9_:]*");
  /** Label matchers and grouping clauses, whose words are label names, not metrics. */
  private static final Pattern LABELS = Pattern.compile(
      "\\{[^}]*}|\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  /** A lone etcd (no peers) shows no series of these per-peer families; etcd's rafthttp metrics.go. */
  private static final Set<String> ETCD_PEER_FAMILIES = Set.of(
      "etcd_network_peer_round_trip_time_seconds_bucket", "etcd_network_peer_sent_bytes_total",
      "etcd_network_peer_received_bytes_total", "etcd_network_peer_sent_failures_total",
      "etcd_network_peer_received_failures_total");

  @Test
  void everyReferencedMetricIsExposed() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/etcd")), "etcd is not installed (Debian's etcd-server)");
    Set<String> referenced = referenced();
    assertTrue(referenced.contains("akka_etcd_applier_lag_entries") && referenced.contains("etcd_server_has_leader"),
        "the kit's expressions were read: " + referenced);
    Set<String> ours;
    try (EmbeddedMember m = new EmbeddedMember("--metrics", "extensive")) {
      ours = names(scrape(m.url()));
    }
    Set<String> ourMissing = new TreeSet<>(referenced);
    ourMissing.removeIf(n -> !n.startsWith("akka_etcd_") || ours.contains(n));
    assertEquals(Set.of(), ourMissing, "akka_etcd_* metrics the kit queries that no member exposes");

    Set<String> etcds;
    try (ServerProcess e = ServerProcess.start(ServerProcess.Kind.ETCD, List.of("--metrics", "extensive"))) {
      etcds = names(scrape(e.clientUrl()));
    }
    etcds.addAll(ETCD_PEER_FAMILIES);
    Set<String> missing = new TreeSet<>(referenced);
    missing.removeIf(n -> n.startsWith("akka_etcd_") || ours.contains(n) || etcds.contains(n));
    assertEquals(Set.of(), missing, "metrics the kit queries that neither akka-etcd nor etcd 3.4 exposes");
  }

  /** docs/monitoring.md's table (generated from the registry) misses no family a member exposes. */
  @Test
  void docsListEveryExposedFamily() throws Exception {
    String doc = Files.readString(Path.of("docs/monitoring.md"));
    Set<String> exposed = new TreeSet<>();
    try (EmbeddedMember m = new EmbeddedMember("--metrics", "extensive")) {
      m.client().getKVClient().put(io.etcd.jetcd.ByteSequence.from("k".getBytes()),
          io.etcd.jetcd.ByteSequence.from("v".getBytes())).get(10, java.util.concurrent.TimeUnit.SECONDS);
      Matcher type = Pattern.compile("(?m)^# TYPE (\\S+) ").matcher(scrape(m.url()));
      while (type.find()) {
        exposed.add(type.group(1));
      }
    }
    exposed.removeIf(name -> doc.contains("| `" + name + "` |"));
    assertEquals(Set.of(), exposed, "exposed but not in docs/monitoring.md (run MetricsDoc)");
  }

  /** Metric names in every PromQL expression of the rules and dashboards. */
  static Set<String> referenced() throws Exception {
    List<String> exprs = new ArrayList<>();
    try (Stream<Path> files = Files.walk(KIT)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith("-alerts.yaml")) {
          collectYaml(new Yaml().load(Files.readString(f)), exprs);
        } else if (name.endsWith(".json")) {
          collectJson(JsonParser.parseString(Files.readString(f)), exprs);
        }
      }
    }
    Set<String> names = new TreeSet<>();
    for (String expr : exprs) {
      Matcher m = NAME.matcher(LABELS.matcher(expr).replaceAll(" "));
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }

  private static void collectYaml(Object node, List<String> exprs) {
    if (node instanceof Map<?, ?> map) {
      map.forEach((k, v) -> {
        if ("expr".equals(k)) {
          exprs.add(String.valueOf(v));
        } else {
          collectYaml(v, exprs);
        }
      });
    } else if (node instanceof List<?> list) {
      list.forEach(v -> collectYaml(v, exprs));
    }
  }

  /** Grafana keeps queries in "expr" (panels' targets) and "query" (template variables). */
  private static void collectJson(JsonElement node, List<String> exprs) {
    if (node.isJsonObject()) {
      node.getAsJsonObject().entrySet().forEach(e -> {
        if ((e.getKey().equals("expr") || e.getKey().equals("query")) && e.getValue().isJsonPrimitive()) {
          exprs.add(e.getValue().getAsString());
        } else {
          collectJson(e.getValue(), exprs);
        }
      });
    } else if (node.isJsonArray()) {
      node.getAsJsonArray().forEach(v -> collectJson(v, exprs));
    }
  }

  /** Sample names in a /metrics body, and each # TYPE family with a histogram's or summary's series. */
  static Set<String> names(String text) {
    Set<String> names = new TreeSet<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        String family = line.split(" ")[2];
        names.add(family);
        Stream.of("_bucket", "_sum", "_count").forEach(s -> names.add(family + s));
      } else if (!line.isEmpty() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  /** Over HTTP/1.1, as Prometheus scrapes (the JDK client would otherwise try an h2c upgrade). */
  static String scrape(String url) throws Exception {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }
}
