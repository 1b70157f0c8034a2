package io.akkaetcd.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** etcd 3.4.23's families as its /metrics shows them: names, types, labels, buckets, values. */
class EtcdMetricsTest {
  private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");

  private final MemberGauges gauges = new MemberGauges() {
    public boolean hasLeader() {
      return true;
    }

    public long committedIndex() {
      return 42;
    }

    public long appliedIndex() {
      return 41;
    }

    public long pendingProposals() {
      return 3;
    }

    public long quotaBackendBytes() {
      return 2147483648L;
    }

    public long dbTotalSize() {
      return 20480;
    }

    public long dbTotalSizeInUse() {
      return 16384;
    }

    public long keysTotal() {
      return 7;
    }

    public String serverVersion() {
      return "3.4.23";
    }
  };

  private static String text(EtcdMetrics m) {
    return new String(m.scrape(), StandardCharsets.UTF_8);
  }

  private static Map<String, String> types(String text) {
    Map<String, String> types = new LinkedHashMap<>();
    Matcher t = TYPE.matcher(text);
    while (t.find()) {
      types.put(t.group(1), t.group(2));
    }
    return types;
  }

  @Test
  void familiesHaveEtcdsNamesAndTypes() {
    Map<String, String> types = types(text(new EtcdMetrics(gauges, false, false)));
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("etcd_server_has_leader", "gauge");
    expected.put("etcd_server_leader_changes_seen_total", "counter");
    expected.put("etcd_server_proposals_committed_total", "gauge");
    expected.put("etcd_server_proposals_applied_total", "gauge");
    expected.put("etcd_server_proposals_pending", "gauge");
    expected.put("etcd_server_proposals_failed_total", "counter");
    expected.put("etcd_server_quota_backend_bytes", "gauge");
    expected.put("etcd_server_version", "gauge");
    expected.put("etcd_mvcc_db_total_size_in_bytes", "gauge");
    expected.put("etcd_mvcc_db_total_size_in_use_in_bytes", "gauge");
    expected.put("etcd_debugging_mvcc_keys_total", "gauge");
    expected.put("etcd_disk_wal_fsync_duration_seconds", "histogram");
    expected.put("etcd_disk_backend_commit_duration_seconds", "histogram");
    expected.put("etcd_network_client_grpc_sent_bytes_total", "counter");
    expected.put("etcd_network_client_grpc_received_bytes_total", "counter");
    expected.put("grpc_server_started_total", "counter");
    expected.put("grpc_server_handled_total", "counter");
    expected.put("grpc_server_msg_received_total", "counter");
    expected.put("grpc_server_msg_sent_total", "counter");
    expected.forEach((name, type) -> assertEquals(type, types.get(name), name));
    assertFalse(types.containsKey("grpc_server_handling_seconds"), "only with --metrics=extensive");
  }

  @Test
  void gaugesAreReadFromTheMember() {
    String text = text(new EtcdMetrics(gauges, false, false));
    for (String line : List.of("etcd_server_has_leader 1.0", "etcd_server_proposals_committed_total 42.0",
        "etcd_server_proposals_applied_total 41.0", "etcd_server_proposals_pending 3.0",
        "etcd_server_quota_backend_bytes 2.147483648E9", "etcd_mvcc_db_total_size_in_bytes 20480.0",
        "etcd_mvcc_db_total_size_in_use_in_bytes 16384.0", "etcd_debugging_mvcc_keys_total 7.0",
        "etcd_server_version{server_version=\"3.4.23\"} 1.0", "etcd_server_leader_changes_seen_total 0.0")) {
      assertTrue(text.contains("\n" + line + "\n"), line + " in\n" + text);
    }
  }

  @Test
  void histogramsHaveEtcdsBuckets() {
    EtcdMetrics m = new EtcdMetrics(gauges, true, false);
    m.walFsyncDuration.observe(0.003);
    m.peerRoundTripTime.labelValues("8e9e05c52164694d").observe(0.0002);
    String text = text(m);
    assertEquals(List.of("0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064", "0.128", "0.256",
        "0.512", "1.024", "2.048", "4.096", "8.192", "+Inf"), bounds(text, "etcd_disk_wal_fsync_duration_seconds_bucket{"));
    assertEquals(bounds(text, "etcd_disk_wal_fsync_duration_seconds_bucket{"),
        bounds(text, "etcd_disk_backend_commit_duration_seconds_bucket{"));
    assertEquals(List.of("1.0E-4", "2.0E-4", "4.0E-4", "8.0E-4", "0.0016", "0.0032", "0.0064", "0.0128", "0.0256",
        "0.0512", "0.1024", "0.2048", "0.4096", "0.8192", "1.6384", "3.2768", "+Inf"),
        bounds(text, "etcd_network_peer_round_trip_time_seconds_bucket{To=\"8e9e05c52164694d\","));
    assertTrue(text.contains("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.002\"} 0\n"), text);
    assertTrue(text.contains("etcd_disk_wal_fsync_duration_seconds_bucket{le=\"0.004\"} 1\n"), text);
    assertEquals(List.of("0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0", "+Inf"),
        bounds(text, "grpc_server_handling_seconds_bucket{grpc_method=\"Put\",grpc_service=\"etcdserverpb.KV\",grpc_type=\"unary\","));
  }

  @Test
  void peerCountersAreLabelledByPeer() {
    EtcdMetrics m = new EtcdMetrics(gauges, false, false);
    m.peerSentBytes.labelValues("a1").inc(100);
    m.peerSentFailures.labelValues("a1").inc();
    m.peerReceivedBytes.labelValues("b2").inc(7);
    String text = text(m);
    assertTrue(text.contains("\netcd_network_peer_sent_bytes_total{To=\"a1\"} 100.0\n"), text);
    assertTrue(text.contains("\netcd_network_peer_sent_failures_total{To=\"a1\"} 1.0\n"), text);
    assertTrue(text.contains("\netcd_network_peer_received_bytes_total{From=\"b2\"} 7.0\n"), text);
  }

  @Test
  void grpcSeriesExistAtZeroForEveryMethodAndCode() {
    String text = text(new EtcdMetrics(gauges, false, false));
    for (String code : GrpcCodes.NAMES) {
      assertTrue(text.contains("\ngrpc_server_handled_total{grpc_code=\"" + code
          + "\",grpc_method=\"Watch\",grpc_service=\"etcdserverpb.Watch\",grpc_type=\"bidi_stream\"} 0.0\n"), code);
    }
    assertTrue(text.contains("\ngrpc_server_started_total{grpc_method=\"Snapshot\","
        + "grpc_service=\"etcdserverpb.Maintenance\",grpc_type=\"server_stream\"} 0.0\n"), text);
    assertTrue(text.contains("\ngrpc_server_msg_sent_total{grpc_method=\"Check\","
        + "grpc_service=\"grpc.health.v1.Health\",grpc_type=\"unary\"} 0.0\n"), text);
    long handled = text.lines().filter(l -> l.startsWith("grpc_server_handled_total{")).count();
    assertEquals(GrpcMethods.TYPES.size() * 17L, handled);
    assertEquals("Canceled", GrpcCodes.name(1));
  }

  @Test
  void handledCountsByCode() {
    EtcdMetrics m = new EtcdMetrics(gauges, false, false);
    m.grpc().started("/etcdserverpb.KV/Put");
    m.grpc().handled("/etcdserverpb.KV/Put", 0, 1000);
    m.grpc().handled("/etcdserverpb.KV/Put", 9, 1000);
    m.grpc().handled("/etcdserverpb.KV/Put", 99, 1000);
    String text = text(m);
    String labels = "grpc_method=\"Put\",grpc_service=\"etcdserverpb.KV\",grpc_type=\"unary\"";
    assertTrue(text.contains("\ngrpc_server_started_total{" + labels + "} 1.0\n"), text);
    assertTrue(text.contains("\ngrpc_server_handled_total{grpc_code=\"OK\"," + labels + "} 1.0\n"), text);
    assertTrue(text.contains("\ngrpc_server_handled_total{grpc_code=\"FailedPrecondition\"," + labels + "} 1.0\n"));
    assertTrue(text.contains("\ngrpc_server_handled_total{grpc_code=\"Unknown\"," + labels + "} 1.0\n"), text);
  }

  @Test
  void processAndJvmMetricsWhenAsked() {
    Map<String, String> types = types(text(new EtcdMetrics(gauges, false, true)));
    assertEquals("counter", types.get("process_cpu_seconds_total"));
    assertEquals("gauge", types.get("process_start_time_seconds"));
    assertEquals("gauge", types.get("process_resident_memory_bytes"));
    assertEquals("gauge", types.get("jvm_memory_used_bytes"));
  }

  @Test
  void contentTypeIsPrometheusText004() {
    assertEquals("text/plain; version=0.0.4; charset=utf-8", EtcdMetrics.CONTENT_TYPE);
  }

  /** The {@code le} values of a histogram's series whose line starts with {@code prefix}. */
  private static List<String> bounds(String text, String prefix) {
    List<String> les = new ArrayList<>();
    Matcher le = Pattern.compile("le=\"([^\"]+)\"").matcher("");
    text.lines().filter(l -> l.startsWith(prefix)).forEach(l -> {
      if (le.reset(l).find()) {
        les.add(le.group(1));
      }
    });
    return les;
  }
}
