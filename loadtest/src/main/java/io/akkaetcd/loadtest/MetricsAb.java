package io.akkaetcd.loadtest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue #29's overhead target, {@code loadtest/compare --metrics-ab}: akka-etcd with metrics on
 * against akka-etcd with {@code --experimental-metrics-off}, the put workloads in alternating
 * rounds (as {@link Compare} alternates etcd and akka-etcd), medians. Target: puts with 64
 * clients lose at most 3 % throughput with metrics on. No etcd needed.
 */
final class MetricsAb {
  static final String ON = "metrics on";
  static final String OFF = "metrics off";

  private MetricsAb() {}

  static void run(String akka, Path work, String suiteName, int rounds) throws Exception {
    int n = suiteName.equals("full") ? 50_000 : 10_000;
    List<Compare.Workload> suite = List.of(
        new Compare.Workload("put, 64 clients", Compare.PUTS_64_CLIENTS + " --total " + n),
        new Compare.Workload("put, 1 client", "put --clients 1 --total " + n / 10));
    Map<String, Map<String, List<Compare.Score>>> scores = new LinkedHashMap<>();
    try (ServerUnderTest on = new ServerUnderTest(ServerUnderTest.Kind.AKKA_ETCD, akka,
            Files.createDirectories(work.resolve("on")), List.of()).labelled(ON);
         ServerUnderTest off = new ServerUnderTest(ServerUnderTest.Kind.AKKA_ETCD, akka,
            Files.createDirectories(work.resolve("off")), List.of("--experimental-metrics-off")).labelled(OFF)) {
      List<ServerUnderTest> servers = List.of(on, off);
      for (ServerUnderTest server : servers) {
        server.start();
        System.err.printf("== %s (pid %d) on %s%n", server.name(), server.pid(), server.endpoint);
      }
      for (ServerUnderTest server : servers) {
        Compare.warmUp(server);
      }
      Compare.measureRounds(suite, servers, rounds, scores);
    }
    System.out.println(table(suiteName, rounds, suite, scores));
  }

  static String table(String suiteName, int rounds, List<Compare.Workload> suite,
      Map<String, Map<String, List<Compare.Score>>> scores) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n## %s, metrics on / off, suite %s, 1 member, %d cores, median of %d alternating rounds%n%n",
        LocalDate.now(), suiteName, Runtime.getRuntime().availableProcessors(), rounds));
    b.append("| workload | on ops/s | off ops/s | on / off | p50 ms on / off | p99 ms on / off | server CPU µs/op on / off | rounds on / off (ops/s) |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---|\n");
    List<String> verdicts = new ArrayList<>();
    for (Compare.Workload w : suite) {
      List<Compare.Score> on = scores.get(w.label()).get(ON);
      List<Compare.Score> off = scores.get(w.label()).get(OFF);
      double ratio = Compare.median(on, Compare.Score::rps) / Compare.median(off, Compare.Score::rps);
      b.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | **%.3f** | %.2f / %.2f | %.2f / %.2f | %.0f / %.0f | %s / %s |%n",
          w.label(), Compare.median(on, Compare.Score::rps), Compare.median(off, Compare.Score::rps), ratio,
          Compare.median(on, Compare.Score::p50), Compare.median(off, Compare.Score::p50),
          Compare.median(on, Compare.Score::p99), Compare.median(off, Compare.Score::p99),
          Compare.median(on, Compare.Score::cpuMicrosPerOp), Compare.median(off, Compare.Score::cpuMicrosPerOp),
          rates(on), rates(off)));
      if (w.label().equals("put, 64 clients")) {
        verdicts.add(String.format(Locale.ROOT, "puts with 64 clients: metrics cost %.1f %% of throughput (target: at most 3 %%): %s",
            (1 - ratio) * 100, ratio >= 0.97 ? "met" : "NOT met"));
      }
    }
    verdicts.forEach(v -> b.append('\n').append(v).append('\n'));
    return b.toString();
  }

  private static String rates(List<Compare.Score> rounds) {
    return String.join(" ", rounds.stream().map(s -> String.format(Locale.ROOT, "%.0f", s.rps())).toList());
  }
}
