package io.akkaetcd.loadtest;

import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Puts through the in-process client against puts over gRPC, on one member started inside this
 * JVM, in one run ({@code loadtest/in-process}): the comparison's put workload with 64 clients
 * through each path, the order alternating round by round, medians of the rounds. The member keeps
 * its data on disk with etcd's fsync, as in the tool's other runs.
 */
public final class InProcessPuts {
  private static final String USAGE = String.join("\n",
      "usage: loadtest/in-process [--rounds 3] [--warmup 4] [--total 50000] [--work DIR]",
      "",
      "Starts one akka-etcd member inside the tool's JVM (data in a fresh dir under --work, free",
      "loopback ports), then puts with 64 clients (" + Compare.PUTS_64_CLIENTS + ") through",
      "the gRPC path (8 connections to the member's client URL) and through the in-process client,",
      "--warmup pairs of runs first, then --rounds pairs in alternating order, --total puts each.",
      "Prints a table of medians and in-process / gRPC ratios, with this JVM's CPU per put (member",
      "and load together) and the machine's load average.");

  static final String GRPC = "gRPC";
  static final String IN_PROCESS = "in-process";

  /** One run of one path: puts/s, latency, and this JVM's CPU per put (member and load together). */
  record Score(double rps, double p50, double p99, double cpuMicrosPerOp, long errors) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.0f puts/s, p50 %.2f ms, p99 %.2f ms, %.0f µs CPU/put, %d errors",
          rps, p50, p99, cpuMicrosPerOp, errors);
    }
  }

  private InProcessPuts() {}

  public static void main(String[] args) throws Exception {
    ensureAsyncPool();
    Options o = new Options(args);
    if (o.has("help")) {
      System.out.println(USAGE);
      return;
    }
    int rounds = o.integer("rounds", 3);
    int warmup = o.integer("warmup", 4);
    long total = o.longValue("total", 50_000);
    // a fresh temporary directory only when --work names none; the member's data dir is deleted at the end
    String workFlag = o.string("work", "");
    o.checkAllUsed();
    boolean ownWork = workFlag.isEmpty();
    Path work = ownWork ? Files.createTempDirectory("in-process") : Path.of(workFlag);
    Path dataDir = work.resolve("in-process.data");
    String loadAtStart = loadAverage();
    Map<String, List<Score>> scores = new LinkedHashMap<>();
    try (InProcessMember member = InProcessMember.start(dataDir)) {
      System.err.printf("== one member in this JVM (pid %d), client URL %s, data in %s%n",
          ProcessHandle.current().pid(), member.endpoint, dataDir);
      String workload = Compare.PUTS_64_CLIENTS + " --total " + total;
      for (int run = 0; run < warmup; run++) {
        for (String path : order(run)) {
          System.err.printf("warm-up %s: %s%n", path, measure(member, path, workload));
        }
      }
      for (int round = 0; round < rounds; round++) {
        for (String path : order(round)) {
          Score s = measure(member, path, workload);
          System.err.printf("round %d %s: %s%n", round + 1, path, s);
          scores.computeIfAbsent(path, k -> new ArrayList<>()).add(s);
        }
      }
    } finally {
      ServerUnderTest.deleteTree(ownWork ? work : dataDir);
    }
    System.out.println(table(rounds, total, scores, loadAtStart, loadAverage()));
  }

  /** Which path goes first alternates, so the machine's drift falls on both. */
  private static List<String> order(int round) {
    return round % 2 == 0 ? List.of(GRPC, IN_PROCESS) : List.of(IN_PROCESS, GRPC);
  }

  /** One run of {@code workload} through {@code path}; gRPC opens its connections anew, as the comparison's rounds do. */
  private static Score measure(InProcessMember member, String path, String workload) throws InterruptedException {
    Options o = new Options(workload.split(" "));
    int clients = o.integer("clients", 1);
    long total = o.longValue("total", 10_000);
    long cpu0 = ProcessCpu.toolMillis();
    Report r;
    if (path.equals(GRPC)) {
      List<ManagedChannel> ch = Rpc.channels(List.of(member.endpoint), o.integer("conns", 1));
      try {
        r = KvLoad.put("put-grpc", o, ch, KvLoad.GRPC_PUT, clients, total, 0);
      } finally {
        Rpc.shutdown(ch);
      }
    } else {
      r = KvLoad.put("put-in-process", o, List.of(member), InProcessMember::put, clients, total, 0);
    }
    long cpu = ProcessCpu.toolMillis() - cpu0;
    System.out.println(r.resultLine());
    return new Score(r.throughput(), r.percentileMs(50), r.percentileMs(99), cpu * 1000.0 / Math.max(1, r.okCount()),
        r.errorCount());
  }

  private static String table(int rounds, long total, Map<String, List<Score>> scores, String loadBefore, String loadAfter) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n## %s, in-process client vs gRPC, 1 member in one JVM, %d cores, "
            + "median of %d alternating rounds of %d puts, 64 clients%n%n", LocalDate.now(),
        Runtime.getRuntime().availableProcessors(), rounds, total));
    b.append("| path | puts/s | p50 ms | p99 ms | JVM CPU µs/put | errors |\n|---|---:|---:|---:|---:|---:|\n");
    for (String path : List.of(GRPC, IN_PROCESS)) {
      List<Score> s = scores.get(path);
      b.append(String.format(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %.0f | %d |%n", path,
          Compare.median(s, Score::rps), Compare.median(s, Score::p50), Compare.median(s, Score::p99),
          Compare.median(s, Score::cpuMicrosPerOp), s.stream().mapToLong(Score::errors).sum()));
    }
    List<Score> g = scores.get(GRPC);
    List<Score> i = scores.get(IN_PROCESS);
    b.append(String.format(Locale.ROOT, "| **in-process ÷ gRPC** | **%.2f** | %.2f | %.2f | %.2f | |%n",
        Compare.median(i, Score::rps) / Compare.median(g, Score::rps),
        Compare.median(i, Score::p50) / Compare.median(g, Score::p50),
        Compare.median(i, Score::p99) / Compare.median(g, Score::p99),
        Compare.median(i, Score::cpuMicrosPerOp) / Compare.median(g, Score::cpuMicrosPerOp)));
    b.append(String.format("%nload average (1, 5, 15 min) before: %s; after: %s%n", loadBefore, loadAfter));
    return b.toString();
  }

  /** The machine's load average, from /proc/loadavg: the figures are only as good as the machine was idle. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /**
   * As the server's Main: with fewer than 3 cores the JDK's common pool has 1 thread and every
   * async step of Akka gRPC's handlers starts a thread; must run before anything touches the pool.
   */
  private static void ensureAsyncPool() {
    String property = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(property) == null) {
      System.setProperty(property, Integer.toString(Math.max(2, Runtime.getRuntime().availableProcessors() - 1)));
    }
  }
}
