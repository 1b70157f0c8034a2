package io.akkaetcd.loadtest;

import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one-member comparison with security on ({@code loadtest/compare --tls} and/or {@code --user}),
 * issues #26 and #27: the same etcd and akka-etcd pair as {@link Compare}, warmed up alike, each
 * workload on both in turn (alternating order, medians).
 *
 * <p>--tls: puts with 64 clients over TLS, and new TLS connections per second. --user: puts with
 * auth off, then auth on (see {@link AuthLoad#enable}) puts as a user with one granted prefix and as
 * one with 1,000 (the permission check's cost), and Authenticate calls per second; the figures
 * table adds each server's auth-on ÷ auth-off and 1,000-range ÷ 1-range put ratios.
 */
final class SecureCompare {
  private static final String AS_BENCH = " --user bench:" + AuthLoad.PASSWORD;
  private static final String AS_BENCH1000 = " --user bench1000:" + AuthLoad.PASSWORD;
  private static final String PREFIXED_PUTS = Compare.PUTS_64_CLIENTS + " --key-prefix " + AuthLoad.PREFIX;

  private SecureCompare() {}

  static List<Compare.Workload> tlsSuite(boolean full) {
    return List.of(
        new Compare.Workload("put, 64 clients, TLS", Compare.PUTS_64_CLIENTS + " --total " + (full ? 50_000 : 10_000)),
        new Compare.Workload("new TLS connections (connect, handshake, 1 Range, close), 8 clients",
            "connect --clients 8 --conns 1 --total " + (full ? 5_000 : 1_000)));
  }

  /** Measured before auth is enabled: the baseline the auth-on puts are held to. */
  static List<Compare.Workload> authOffSuite(boolean full) {
    return List.of(new Compare.Workload("put, 64 clients, auth off", PREFIXED_PUTS + " --total " + (full ? 50_000 : 10_000)));
  }

  static List<Compare.Workload> authOnSuite(boolean full) {
    int n = full ? 50_000 : 10_000;
    return List.of(
        new Compare.Workload("put, 64 clients, as bench (1 range)", PREFIXED_PUTS + AS_BENCH + " --total " + n),
        new Compare.Workload("put, 64 clients, as bench1000 (1,000 ranges)", PREFIXED_PUTS + AS_BENCH1000 + " --total " + n),
        new Compare.Workload("authenticate, 8 clients", "authenticate --clients 8 --conns 8 --total " + (full ? 400 : 100)));
  }

  static void run(String etcd, String akka, Path work, String suiteName, int rounds, String only, TlsFiles tls, boolean user)
      throws Exception {
    boolean full = suiteName.equals("full");
    Files.createDirectories(work);
    List<Compare.Workload> before = user ? authOffSuite(full) : tlsSuite(full);
    List<Compare.Workload> after = user ? authOnSuite(full) : List.of();
    before = before.stream().filter(w -> w.label().startsWith(only)).toList();
    after = after.stream().filter(w -> w.label().startsWith(only)).toList();
    Map<String, Map<String, List<Compare.Score>>> scores = new LinkedHashMap<>();
    Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
    try (ServerUnderTest e = new ServerUnderTest(ServerUnderTest.Kind.ETCD, etcd, work, List.of(), tls);
         ServerUnderTest a = new ServerUnderTest(ServerUnderTest.Kind.AKKA_ETCD, akka, work, List.of(), tls)) {
      List<ServerUnderTest> servers = List.of(e, a);
      for (ServerUnderTest server : servers) {
        Map<String, Double> fig = new LinkedHashMap<>();
        figures.put(server.name(), fig);
        fig.put("start ms (empty)", (double) server.start());
        System.err.printf("== %s (pid %d) on %s://%s%n", server.name(), server.pid(), server.access.scheme(), server.endpoint);
      }
      for (ServerUnderTest server : servers) {
        Compare.seed(server);
        Compare.warmUp(server);
        Compare.warmWorkloads(server, before);
      }
      Compare.measureRounds(before, servers, rounds, scores);
      if (user) {
        for (ServerUnderTest server : servers) {
          List<ManagedChannel> ch = Compare.channels(server, 1);
          try {
            AuthLoad.enable(ch.get(0));
          } finally {
            Rpc.shutdown(ch);
          }
          // the auth-on paths warm up too: a check per request, a token per connection
          Compare.runQuiet(server, PREFIXED_PUTS + AS_BENCH + " --total " + Math.min(50_000, 5_000 * (1 + Compare.warmupRuns)));
          Compare.runQuiet(server, PREFIXED_PUTS + AS_BENCH1000 + " --total " + Math.min(50_000, 5_000 * (1 + Compare.warmupRuns)));
          Compare.runQuiet(server, "authenticate --clients 8 --conns 8 --total 40");
          Compare.warmWorkloads(server, after);
        }
        Compare.measureRounds(after, servers, rounds, scores);
        for (ServerUnderTest server : servers) {
          ratio(figures, scores, server, "puts as bench ÷ auth off", "put, 64 clients, as bench (1 range)",
              "put, 64 clients, auth off");
          ratio(figures, scores, server, "puts with 1,000 ranges ÷ 1 range", "put, 64 clients, as bench1000 (1,000 ranges)",
              "put, 64 clients, as bench (1 range)");
        }
      }
    }
    List<Compare.Workload> suite = new java.util.ArrayList<>(before);
    suite.addAll(after);
    Compare.print((tls != null ? "tls" : "") + (tls != null && user ? "+" : "") + (user ? "user" : "") + " " + suiteName,
        rounds, suite, scores, figures);
  }

  /** One server's median throughput on workload {@code num} ÷ on {@code den}, when both ran. */
  private static void ratio(Map<String, Map<String, Double>> figures, Map<String, Map<String, List<Compare.Score>>> scores,
      ServerUnderTest server, String figure, String num, String den) {
    if (!scores.containsKey(num) || !scores.containsKey(den)) return;
    double n = Compare.median(scores.get(num).get(server.name()), Compare.Score::rps);
    double d = Compare.median(scores.get(den).get(server.name()), Compare.Score::rps);
    figures.get(server.name()).put(figure, n / d);
  }
}
