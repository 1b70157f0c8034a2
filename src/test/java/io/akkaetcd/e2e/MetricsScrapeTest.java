package io.akkaetcd.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.etcd.jetcd.ByteSequence;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * GET /metrics on a running member: etcd's content type, grpc_server_handled_total counting the
 * gRPC puts made (and not the in-process client's), the key count; and the etcd and gRPC families
 * it exports compared with real etcd 3.4's.
 */
class MetricsScrapeTest {
  private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");
  private static final String PUT_OK = "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Put\","
      + "grpc_service=\"etcdserverpb.KV\",grpc_type=\"unary\"} ";
  /** Families etcd shows only once it has peers, or only with --metrics=extensive. */
  private static final Set<String> NOT_IN_A_LONE_ETCD = Set.of("etcd_network_peer_round_trip_time_seconds",
      "etcd_network_peer_sent_bytes_total", "etcd_network_peer_sent_failures_total",
      "etcd_network_peer_received_bytes_total", "grpc_server_handling_seconds");

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build(); // as Prometheus scrapes

  private HttpResponse<String> scrape(String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString(UTF_8));
  }

  @Test
  void scrapeCountsGrpcPutsAndKeys() throws Exception {
    try (EmbeddedMember m = new EmbeddedMember()) {
      int puts = 5;
      long requestBytes = 0;
      for (int i = 0; i < puts; i++) {
        m.client().getKVClient().put(bytes("k" + (i % 3)), bytes("v" + i)).get(10, TimeUnit.SECONDS);
        requestBytes += PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k" + (i % 3)))
            .setValue(ByteString.copyFromUtf8("v" + i)).build().getSerializedSize();
      }
      m.server().client().kv().put(ByteString.copyFromUtf8("in-process"), ByteString.copyFromUtf8("v"))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      HttpResponse<String> resp = scrape(m.url());
      assertEquals(200, resp.statusCode());
      assertEquals("text/plain; version=0.0.4; charset=utf-8",
          resp.headers().firstValue("Content-Type").orElse("").toLowerCase(java.util.Locale.ROOT));
      String text = resp.body();
      assertEquals(puts, value(text, PUT_OK), "gRPC puts only: the in-process client's is not counted");
      assertEquals(puts, value(text, "grpc_server_started_total{grpc_method=\"Put\",grpc_service=\"etcdserverpb.KV\","
          + "grpc_type=\"unary\"} "));
      assertEquals(4, value(text, "etcd_debugging_mvcc_keys_total "), "k0, k1, k2 and in-process");
      assertEquals(1, value(text, "etcd_server_has_leader "));
      assertTrue(value(text, "etcd_server_proposals_applied_total ") >= puts + 1, text);
      assertTrue(value(text, "etcd_mvcc_db_total_size_in_bytes ") > 0, text);
      assertTrue(text.contains("\nprocess_resident_memory_bytes "), text);
      assertEquals(requestBytes, value(text, "etcd_network_client_grpc_received_bytes_total "), "the puts' messages");
      assertTrue(value(text, "etcd_network_client_grpc_sent_bytes_total ") >= puts * 10L, "5 responses with headers");
    }
  }

  /**
   * A stream's messages count one by one, as go-grpc-prometheus's stream interceptor counts them.
   * The put comes once the watch is registered: jetcd 0.7.7 sets its response handler after it
   * sent the create request, so a response that arrives sooner (a catch-up from an old revision,
   * on a loaded machine) is dropped by the client, whatever the server.
   */
  @Test
  void watchStreamMessagesCount() throws Exception {
    try (EmbeddedMember m = new EmbeddedMember()) {
      java.util.concurrent.CompletableFuture<Void> event = new java.util.concurrent.CompletableFuture<>();
      try (io.etcd.jetcd.Watch.Watcher w = m.client().getWatchClient().watch(bytes("w"),
          r -> event.complete(null))) {
        awaitSeries(m, "etcd_debugging_mvcc_watcher_total ", 1);
        m.client().getKVClient().put(bytes("w"), bytes("1")).get(10, TimeUnit.SECONDS);
        event.get(10, TimeUnit.SECONDS);
        String text = scrape(m.url()).body();
        String watch = "{grpc_method=\"Watch\",grpc_service=\"etcdserverpb.Watch\",grpc_type=\"bidi_stream\"} ";
        assertEquals(1, value(text, "grpc_server_started_total" + watch));
        assertEquals(1, value(text, "grpc_server_msg_received_total" + watch), "the create request");
        assertTrue(value(text, "grpc_server_msg_sent_total" + watch) >= 2, "created, then the event");
      }
    }
  }

  /**
   * etcd's watch series follow a real jetcd watch: one stream, one watcher, every event sent
   * counted and none left pending or slow; the watcher leaves the count once canceled.
   */
  @Test
  void watchSeriesFollowAWatch() throws Exception {
    try (EmbeddedMember m = new EmbeddedMember()) {
      java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();
      io.etcd.jetcd.Watch.Watcher w = m.client().getWatchClient().watch(bytes("ws"),
          io.etcd.jetcd.options.WatchOption.builder().isPrefix(true).build(),
          r -> received.addAndGet(r.getEvents().size()));
      try {
        awaitSeries(m, "etcd_debugging_mvcc_watcher_total ", 1);
        for (int i = 0; i < 3; i++) {
          m.client().getKVClient().put(bytes("ws/" + i), bytes("v")).get(10, TimeUnit.SECONDS);
        }
        awaitSeries(m, "etcd_debugging_mvcc_events_total ", 3);
        String text = scrape(m.url()).body();
        assertEquals(1, value(text, "etcd_debugging_mvcc_watch_stream_total "));
        assertEquals(0, value(text, "etcd_debugging_mvcc_pending_events_total "), "all taken by the transport");
        assertEquals(0, value(text, "etcd_debugging_mvcc_slow_watcher_total "), "caught up");
        assertTrue(text.contains("# TYPE etcd_debugging_mvcc_events_total counter\n"), text);
        assertTrue(text.contains("# TYPE etcd_debugging_mvcc_watcher_total gauge\n"), text);
      } finally {
        w.close();
      }
      awaitSeries(m, "etcd_debugging_mvcc_watcher_total ", 0);
      assertTrue(received.get() <= 3, "no event twice: " + received.get());
    }
  }

  /** etcd 3.4's per-call MVCC counters, with the put size: what {@link #mvccCalls} moves. */
  private static final List<String> MVCC_SERIES = List.of("etcd_mvcc_put_total ", "etcd_mvcc_range_total ",
      "etcd_mvcc_delete_total ", "etcd_mvcc_txn_total ", "etcd_debugging_mvcc_put_total ",
      "etcd_debugging_mvcc_range_total ", "etcd_debugging_mvcc_delete_total ", "etcd_debugging_mvcc_txn_total ",
      "etcd_debugging_mvcc_total_put_size_in_bytes ");

  /**
   * The MVCC counters follow the calls each request makes, by etcd 3.4's rule (a range for every
   * compare, prev_kv and compaction header; a txn for a request of more than one call), and a
   * compaction gets one sample in the index and the db histograms; with etcd installed, etcd
   * 3.4.23 moves them alike on the same requests.
   */
  @Test
  void mvccCountersFollowTheCallsAsEtcds() throws Exception {
    Map<String, Long> ours;
    try (EmbeddedMember m = new EmbeddedMember()) {
      ours = grown(m.url(), m.client(), MVCC_SERIES, MetricsScrapeTest::mvccCalls);
      awaitSeries(m, "etcd_debugging_mvcc_db_compaction_total_duration_milliseconds_count ", 1);
      String text = scrape(m.url()).body();
      assertEquals(1, value(text, "etcd_debugging_mvcc_index_compaction_pause_duration_milliseconds_count "));
      assertTrue(value(text, "etcd_debugging_mvcc_db_compaction_keys_total ") > 0, "b's put and delete");
      assertEquals(value(text, "etcd_debugging_mvcc_current_revision "),
          value(text, "etcd_debugging_mvcc_compact_revision "), "compacted at the current revision");
      assertEquals(1, value(text, "etcd_server_is_leader "));
    }
    // puts: a, b, c (prev_kv), d (in the txn); ranges: get a, c's prev_kv, the txn's compare and
    // get, b's prev_kv, the compaction's header; deletes: b and x; txns: c, the txn, b's delete.
    assertEquals(Map.of("etcd_mvcc_put_total ", 4L, "etcd_mvcc_range_total ", 6L, "etcd_mvcc_delete_total ", 2L,
        "etcd_mvcc_txn_total ", 3L, "etcd_debugging_mvcc_put_total ", 4L, "etcd_debugging_mvcc_range_total ", 6L,
        "etcd_debugging_mvcc_delete_total ", 2L, "etcd_debugging_mvcc_txn_total ", 3L,
        "etcd_debugging_mvcc_total_put_size_in_bytes ", 9L), ours);
    assertEtcdGrowsAlike(ours, MVCC_SERIES, MetricsScrapeTest::mvccCalls);
  }

  /** The lease counters and TTL histogram, and a defragmentation's, as etcd's move on the same calls. */
  private static final List<String> LEASE_SERIES = List.of("etcd_debugging_lease_granted_total ",
      "etcd_debugging_lease_revoked_total ", "etcd_debugging_lease_renewed_total ",
      "etcd_debugging_lease_ttl_total_count ", "etcd_debugging_lease_ttl_total_sum ",
      "etcd_debugging_lease_ttl_total_bucket{le=\"64.0\"} ", "etcd_disk_backend_defrag_duration_seconds_count ",
      "etcd_disk_defrag_inflight ");

  /**
   * Two grants (60 s and 300 s), one revoke, one keep-alive on the leader, one defragmentation:
   * the lease series and the defragmentation's move as etcd 3.4.23's do.
   */
  @Test
  void leaseAndDefragSeriesFollowTheirCalls() throws Exception {
    Map<String, Long> ours;
    try (EmbeddedMember m = new EmbeddedMember()) {
      ours = grown(m.url(), m.client(), LEASE_SERIES, MetricsScrapeTest::leaseCalls);
      String version = http.send(HttpRequest.newBuilder(URI.create(m.url() + "/version")).build(),
          HttpResponse.BodyHandlers.ofString(UTF_8)).body(); // {"etcdserver":…,"etcdcluster":"3.4.0"}
      Matcher cluster = Pattern.compile("\"etcdcluster\":\"(\\d+\\.\\d+)").matcher(version);
      assertTrue(cluster.find(), version);
      String text = scrape(m.url()).body();
      assertTrue(text.contains("\netcd_cluster_version{cluster_version=\"" + cluster.group(1) + "\"} 1"), text);
    }
    assertEquals(1L, ours.get("etcd_debugging_lease_revoked_total "));
    assertEquals(360L, ours.get("etcd_debugging_lease_ttl_total_sum "));
    assertEquals(1L, ours.get("etcd_debugging_lease_ttl_total_bucket{le=\"64.0\"} "), "the 60 s lease");
    assertEquals(1L, ours.get("etcd_disk_backend_defrag_duration_seconds_count "));
    assertEtcdGrowsAlike(ours, LEASE_SERIES, MetricsScrapeTest::leaseCalls);
  }

  /** Grants, revokes, renews and defragments. */
  private static void leaseCalls(String url, io.etcd.jetcd.Client c) throws Exception {
    io.etcd.jetcd.Lease lease = c.getLeaseClient();
    long brief = lease.grant(60).get(10, TimeUnit.SECONDS).getID();
    long held = lease.grant(300).get(10, TimeUnit.SECONDS).getID();
    lease.revoke(brief).get(10, TimeUnit.SECONDS);
    lease.keepAliveOnce(held).get(10, TimeUnit.SECONDS);
    c.getMaintenanceClient().defragmentMember(url).get(30, TimeUnit.SECONDS);
  }

  /** Calls made with a client to one server, whose series a test compares. */
  private interface Calls {
    void make(String url, io.etcd.jetcd.Client c) throws Exception;
  }

  /** How much each of {@code series} grew on the server at {@code url} while {@code calls} ran. */
  private Map<String, Long> grown(String url, io.etcd.jetcd.Client c, List<String> series, Calls calls)
      throws Exception {
    String before = scrape(url).body().replace("le=\"64\"", "le=\"64.0\""); // Go prints 64, Java 64.0
    calls.make(url, c);
    String after = scrape(url).body().replace("le=\"64\"", "le=\"64.0\"");
    Map<String, Long> grown = new TreeMap<>();
    for (String s : series) {
      grown.put(s, value(after, s) - value(before, s));
    }
    return grown;
  }

  /** With etcd installed, the same calls grow {@code series} on etcd 3.4.23 as {@code ours} says. */
  private void assertEtcdGrowsAlike(Map<String, Long> ours, List<String> series, Calls calls) throws Exception {
    if (installed()) {
      try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.ETCD, List.of());
           io.etcd.jetcd.Client c = io.etcd.jetcd.Client.builder().endpoints(etcd.clientUrl()).build()) {
        assertEquals(grown(etcd.clientUrl(), c, series, calls), ours, "etcd 3.4.23's for the same calls");
      }
    }
  }

  /** akka-etcd's --experimental-metrics-off: puts count nowhere; the gauges are still served. */
  @Test
  void metricsOffCountsNothingAndKeepsTheGauges() throws Exception {
    try (EmbeddedMember m = new EmbeddedMember("--experimental-metrics-off", "true")) {
      for (int i = 0; i < 3; i++) {
        m.client().getKVClient().put(bytes("k" + i), bytes("v")).get(10, TimeUnit.SECONDS);
      }
      String text = scrape(m.url()).body();
      assertEquals(0, value(text, PUT_OK));
      assertEquals(0, value(text, "etcd_mvcc_put_total "));
      assertEquals(0, value(text, "etcd_disk_wal_fsync_duration_seconds_count "));
      assertEquals(3, value(text, "etcd_debugging_mvcc_keys_total "));
      assertEquals(1, value(text, "etcd_server_has_leader "));
    }
  }

  /** Puts, ranges, a txn, deletes and a compaction, with prev_kv here and there. */
  private static void mvccCalls(String url, io.etcd.jetcd.Client c) throws Exception {
    io.etcd.jetcd.KV kv = c.getKVClient();
    kv.put(bytes("a"), bytes("1")).get(10, TimeUnit.SECONDS);
    kv.put(bytes("b"), bytes("22")).get(10, TimeUnit.SECONDS);
    kv.get(bytes("a")).get(10, TimeUnit.SECONDS);
    kv.put(bytes("c"), bytes("3"), io.etcd.jetcd.options.PutOption.builder().withPrevKV().build())
        .get(10, TimeUnit.SECONDS);
    kv.txn().If(new io.etcd.jetcd.op.Cmp(bytes("a"), io.etcd.jetcd.op.Cmp.Op.GREATER,
            io.etcd.jetcd.op.CmpTarget.version(0)))
        .Then(io.etcd.jetcd.op.Op.put(bytes("d"), bytes("4"), io.etcd.jetcd.options.PutOption.DEFAULT),
            io.etcd.jetcd.op.Op.get(bytes("b"), io.etcd.jetcd.options.GetOption.DEFAULT))
        .commit().get(10, TimeUnit.SECONDS);
    kv.delete(bytes("b"), io.etcd.jetcd.options.DeleteOption.builder().withPrevKV(true).build())
        .get(10, TimeUnit.SECONDS);
    long rev = kv.delete(bytes("x")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
    kv.compact(rev).get(10, TimeUnit.SECONDS);
  }

  /** Scrapes until {@code series} has {@code expected}, for up to 20 s. */
  private void awaitSeries(EmbeddedMember m, String series, long expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    String text = scrape(m.url()).body();
    while (value(text, series) != expected && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
      text = scrape(m.url()).body();
    }
    assertEquals(expected, value(text, series), series);
  }

  /**
   * Every etcd and gRPC family exported here that a lone etcd 3.4 also shows has etcd's type;
   * those etcd has and this does not are printed (the report of what is left).
   */
  @Test
  void familiesMatchRealEtcds() throws Exception {
    assumeTrue(installed(), "etcd is not installed (Debian's etcd-server)");
    Map<String, String> ours;
    try (EmbeddedMember m = new EmbeddedMember()) {
      ours = families(scrape(m.url()).body());
    }
    Map<String, String> etcds;
    try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.ETCD, List.of())) {
      etcds = families(scrape(etcd.clientUrl()).body());
    }
    Set<String> missingInEtcd = new TreeSet<>(ours.keySet());
    missingInEtcd.removeAll(etcds.keySet());
    missingInEtcd.removeAll(NOT_IN_A_LONE_ETCD);
    assertEquals(Set.of(), missingInEtcd, "exported here under a name etcd does not use");
    ours.forEach((name, type) -> {
      if (etcds.containsKey(name)) {
        assertEquals(etcds.get(name), type, name);
      }
    });
    Set<String> notHere = new TreeSet<>(etcds.keySet());
    notHere.removeAll(ours.keySet());
    System.out.println("etcd families not exported here (" + notHere.size() + "): " + notHere);
  }

  /** etcd_* and grpc_* families by name, with their types. */
  private static Map<String, String> families(String text) {
    Map<String, String> types = new TreeMap<>();
    Matcher t = TYPE.matcher(text);
    while (t.find()) {
      if (t.group(1).startsWith("etcd_") || t.group(1).startsWith("grpc_")) {
        types.put(t.group(1), t.group(2));
      }
    }
    return types;
  }

  /** The value of the sample whose line starts with {@code series}. */
  private static long value(String text, String series) {
    return text.lines().filter(l -> l.startsWith(series)).findFirst()
        .map(l -> (long) Double.parseDouble(l.substring(series.length()).trim()))
        .orElseThrow(() -> new AssertionError("no " + series + " in\n" + text));
  }

  private static boolean installed() {
    return Files.isExecutable(Path.of("/usr/bin/etcd"));
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, UTF_8);
  }
}
