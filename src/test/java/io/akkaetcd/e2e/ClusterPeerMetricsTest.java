package io.akkaetcd.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.embed.EmbeddedEtcd;
import io.akkaetcd.embed.EtcdConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's rafthttp series and the key count on a three-member cluster in this JVM: each member
 * has two active peers it measured round trips with, exchanges Raft traffic with the leader, the
 * key count matches the keys on every member, and a stopped member's link goes inactive and
 * counts a disconnect on the others.
 */
class ClusterPeerMetricsTest {
  private static final Pattern ACTIVE = Pattern.compile(
      "(?m)^etcd_network_active_peers\\{Local=\"([0-9a-f]+)\",Remote=\"([0-9a-f]+)\"} (\\S+)$");

  @TempDir Path tmp;

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void peerSeriesAndKeyCountMoveOnAThreeMemberCluster() throws Exception {
    List<EmbeddedEtcd> members = new ArrayList<>();
    List<String> urls = new ArrayList<>();
    try {
      String[] names = {"a", "b", "c"};
      int[] peerPorts = {Ports.free(), Ports.free(), Ports.free()};
      StringBuilder cluster = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        cluster.append(i == 0 ? "" : ",").append(names[i]).append("=http://127.0.0.1:").append(peerPorts[i]);
      }
      for (int i = 0; i < 3; i++) {
        String client = "http://127.0.0.1:" + Ports.free();
        String peer = "http://127.0.0.1:" + peerPorts[i];
        urls.add(client);
        members.add(EmbeddedEtcd.start(EtcdConfig.builder().name(names[i]).dataDir(tmp.resolve(names[i]))
            .listenClientUrls(client).advertiseClientUrls(client)
            .listenPeerUrls(peer).initialAdvertisePeerUrls(peer).initialCluster(cluster.toString())
            .heartbeatInterval(Duration.ofMillis(100)).electionTimeout(Duration.ofMillis(1000)).build()));
      }
      for (EmbeddedEtcd m : members) {
        m.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
      }
      int keys = 5;
      for (int i = 0; i < keys; i++) {
        members.get(0).client().kv().put(ByteString.copyFromUtf8("peer-metrics/" + i), ByteString.copyFromUtf8("v"))
            .toCompletableFuture().get(20, TimeUnit.SECONDS);
      }
      // Every link is active with round trips measured; Raft traffic runs between the leader and
      // each follower only (followers do not talk to each other), so the leader sent to both.
      int sendingToBoth = 0;
      for (String url : urls) {
        String text = awaitScrape(url, t -> value(t, "etcd_debugging_mvcc_keys_total ") == keys,
            "the key count on " + url);
        Map<String, Double> active = active(text);
        assertEquals(2, active.size(), "two peers: " + active);
        String linked = awaitScrape(url, t -> active.keySet().stream().allMatch(remote ->
            active(t).getOrDefault(remote, 0.0) == 1
                && value(t, "etcd_network_peer_round_trip_time_seconds_count{To=\"" + remote + "\"} ") > 0)
            && active.keySet().stream().anyMatch(remote ->
            value(t, "etcd_network_peer_sent_bytes_total{To=\"" + remote + "\"} ") > 100
                && value(t, "etcd_network_peer_received_bytes_total{From=\"" + remote + "\"} ") > 100),
            url + "'s links active, with round trips, and Raft traffic with the leader");
        if (active.keySet().stream().allMatch(r -> value(linked, "etcd_network_peer_sent_bytes_total{To=\"" + r
            + "\"} ") > 100)) {
          sendingToBoth++;
        }
      }
      assertTrue(sendingToBoth >= 1, "the leader sent to both followers");

      // c stops: on a and b its link goes inactive and counts one disconnect.
      String stoppedId = local(awaitScrape(urls.get(2), t -> !active(t).isEmpty(), "c's id"));
      members.get(2).stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
      for (String url : urls.subList(0, 2)) {
        awaitScrape(url, t -> active(t).getOrDefault(stoppedId, 1.0) == 0
            && value(t, "etcd_network_disconnected_peers_total{Local=\"" + local(t) + "\",Remote=\""
                + stoppedId + "\"} ") == 1, url + " sees " + stoppedId + " gone");
      }
    } finally {
      for (EmbeddedEtcd m : members) {
        m.close();
      }
    }
  }

  /** etcd_network_active_peers by Remote. */
  private static Map<String, Double> active(String text) {
    Map<String, Double> byRemote = new TreeMap<>();
    Matcher m = ACTIVE.matcher(text);
    while (m.find()) {
      byRemote.put(m.group(2), Double.parseDouble(m.group(3)));
    }
    return byRemote;
  }

  private static String local(String text) {
    Matcher m = ACTIVE.matcher(text);
    assertTrue(m.find(), text);
    return m.group(1);
  }

  /** Scrapes {@code url} until {@code done} holds, for up to 30 s; returns that scrape. */
  private String awaitScrape(String url, Predicate<String> done, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String text = scrape(url);
    while (!done.test(text) && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
      text = scrape(url);
    }
    assertTrue(done.test(text), what + " in\n" + text);
    return text;
  }

  private String scrape(String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString(UTF_8)).body();
  }

  /** The sample whose line starts with {@code series}, or -1 when there is none. */
  private static double value(String text, String series) {
    return text.lines().filter(l -> l.startsWith(series)).findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length()).trim())).orElse(-1.0);
  }
}
