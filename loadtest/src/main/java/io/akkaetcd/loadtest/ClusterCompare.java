package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.StatusRequest;
import io.akkaetcd.proto.etcdserverpb.StatusResponse;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The comparison for clusters ({@code loadtest/compare --members 3}): a real etcd cluster and an
 * akka-etcd cluster of the same size on loopback, both up for the whole run, each workload on both
 * in turn (alternating order, medians). Clients spread their connections over every member, as
 * etcd's benchmark does with several endpoints (and, for comparison, all on the leader; one client
 * through a follower); server CPU is the sum over the members. Then leader
 * failover: kill -9 of the leader, and the time until a write succeeds on a survivor.
 */
final class ClusterCompare {
  private ClusterCompare() {}

  /** The cluster suite; with {@code tls} clients and peers talk TLS ({@code loadtest/compare --tls --members 3}). */
  static void run(String etcd, String akka, Path work, int size, int rounds, String only, TlsFiles tls) throws Exception {
    Files.createDirectories(work.resolve("cluster"));
    List<Compare.Workload> suite = List.of(
        new Compare.Workload("put, 64 clients on all members", "put --clients 64 --conns 8 --key-space-size 100000 --total 30000"),
        new Compare.Workload("put, 64 clients on the leader",
            "put --target leader --clients 64 --conns 8 --key-space-size 100000 --total 30000"),
        new Compare.Workload("put, 1 client", "put --clients 1 --total 1000"),
        new Compare.Workload("put, 1 client through a follower", "put --target follower --clients 1 --total 1000"),
        new Compare.Workload("range l, 64 clients", "range bench-range --consistency l --clients 64 --conns 8 --total 30000"),
        new Compare.Workload("range s, 64 clients", "range bench-range --consistency s --clients 64 --conns 8 --total 30000"))
        .stream().filter(w -> w.label().startsWith(only)).toList();
    Map<String, List<ServerUnderTest>> clusters = new LinkedHashMap<>();
    clusters.put("etcd", ServerUnderTest.cluster(ServerUnderTest.Kind.ETCD, etcd, work.resolve("cluster"), size, List.of(), tls));
    clusters.put("akka-etcd", ServerUnderTest.cluster(ServerUnderTest.Kind.AKKA_ETCD, akka, work.resolve("cluster"), size,
        List.of(), tls));
    Map<String, Map<String, List<Compare.Score>>> scores = new LinkedHashMap<>();
    Map<String, List<Double>> failover = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, List<ServerUnderTest>> c : clusters.entrySet()) {
        c.getValue().forEach(ServerUnderTest::launch);
        c.getValue().forEach(ServerUnderTest::awaitServing);
        System.err.printf("== %s: %d members on %s%n", c.getKey(), size, endpoints(c.getValue()));
        seed(c.getValue());
        // Warm-up, both alike: long enough for three JVMs to finish compiling their hot paths on 2
        // cores (docs/results-history.md, 2026-11-23, late).
        for (int i = 0; i < Compare.warmupRuns; i++) {
          run(c.getValue(), "put --clients 64 --conns 8 --key-space-size 100000 --total 40000");
        }
        if (Compare.warmupRuns > 0) run(c.getValue(), "range bench-range --consistency l --clients 64 --conns 8 --total 30000");
      }
      List<String> names = new ArrayList<>(clusters.keySet());
      for (Compare.Workload w : suite) {
        for (int round = 0; round < rounds; round++) {
          List<String> order = round % 2 == 0 ? names : List.of(names.get(1), names.get(0));
          for (String name : order) {
            scores.computeIfAbsent(w.label(), k -> new LinkedHashMap<>())
                .computeIfAbsent(name, k -> new ArrayList<>()).add(measure(name, clusters.get(name), w));
          }
        }
      }
      for (int round = 0; round < rounds; round++) {
        for (String name : round % 2 == 0 ? names : List.of(names.get(1), names.get(0))) {
          double ms = failover(clusters.get(name));
          System.out.printf(Locale.ROOT, "[%s] failover: a write succeeded %.0f ms after kill -9 of the leader%n", name, ms);
          failover.computeIfAbsent(name, k -> new ArrayList<>()).add(ms);
        }
      }
    } finally {
      clusters.values().forEach(members -> members.forEach(ServerUnderTest::close));
    }
    print(size, tls != null, rounds, suite, scores, failover);
  }

  private static List<String> endpoints(List<ServerUnderTest> members) {
    return members.stream().map(m -> m.endpoint).toList();
  }

  private static void seed(List<ServerUnderTest> members) throws Exception {
    List<ManagedChannel> ch = Rpc.channels(endpoints(members), 1, members.get(0).access);
    try {
      Rpc.call(ch.get(0), Rpc.PUT, PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("bench-range"))
          .setValue(ByteString.copyFrom(new byte[256])).build()).get();
    } finally {
      Rpc.shutdown(ch);
    }
  }

  private static List<Report> run(List<ServerUnderTest> members, String args) throws InterruptedException {
    Options o = new Options(args.split(" "));
    // --target leader|follower|all: a single connection goes to the leader unless told (the figure
    // etcd's docs quote for one client); more are spread over every member, as clients spread them.
    int conns = o.integer("conns", 1);
    String target = o.string("target", conns == 1 ? "leader" : "all");
    List<ManagedChannel> ch = Rpc.channels(switch (target) {
      case "leader" -> List.of(leader(members).endpoint);
      case "follower" -> List.of(follower(members).endpoint);
      case "all" -> endpoints(members);
      default -> throw new IllegalArgumentException("--target must be leader, follower or all: " + target);
    }, conns, members.get(0).access);
    try {
      return Benchmark.run(o, ch);
    } finally {
      Rpc.shutdown(ch);
    }
  }

  private static Compare.Score measure(String name, List<ServerUnderTest> members, Compare.Workload w)
      throws InterruptedException {
    long cpu0 = members.stream().mapToLong(ServerUnderTest::cpuMillis).sum();
    long tool0 = ProcessCpu.toolMillis();
    List<Report> reports = run(members, w.args());
    long tool = ProcessCpu.toolMillis() - tool0;
    long cpu = members.stream().mapToLong(ServerUnderTest::cpuMillis).sum() - cpu0;
    Report r = reports.get(reports.size() - 1);
    System.out.println("[" + name + " x" + members.size() + "] " + w.label() + ": " + r.resultLine());
    String note = r.errorCount() > 0 ? r.errorCount() + " errors" : "";
    long ok = Math.max(1, r.okCount());
    return new Compare.Score(r.throughput(), r.percentileMs(50), r.percentileMs(99), cpu * 1000.0 / ok, tool * 1000.0 / ok,
        Double.NaN, note);
  }

  /** The member that reports itself leader. */
  private static ServerUnderTest leader(List<ServerUnderTest> members) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      for (ServerUnderTest m : members) {
        if (m.alive()) {
          List<ManagedChannel> ch = Rpc.channels(List.of(m.endpoint), 1, m.access);
          try {
            StatusResponse s = Rpc.call(ch.get(0), Rpc.STATUS, StatusRequest.getDefaultInstance()).get(1, TimeUnit.SECONDS);
            if (s.getLeader() != 0 && s.getLeader() == s.getHeader().getMemberId()) {
              return m;
            }
          } catch (Exception notYet) {
            // no answer: try the next member
          } finally {
            Rpc.shutdown(ch);
          }
        }
      }
      Thread.sleep(20); // polling for a leader, bounded by the deadline
    }
    throw new IllegalStateException("no leader within 30 s");
  }

  /** A live member that is not the leader. */
  private static ServerUnderTest follower(List<ServerUnderTest> members) throws InterruptedException {
    ServerUnderTest leader = leader(members);
    return members.stream().filter(m -> m != leader && m.alive()).findFirst()
        .orElseThrow(() -> new IllegalStateException("no live follower"));
  }

  /**
   * kill -9 of the leader, then writes to the survivors (100 ms deadline each) until one succeeds:
   * the milliseconds from the kill to that success. The killed member is restarted afterwards.
   */
  private static double failover(List<ServerUnderTest> members) throws InterruptedException {
    ServerUnderTest old = leader(members);
    List<ServerUnderTest> survivors = members.stream().filter(m -> m != old).toList();
    List<ManagedChannel> ch = Rpc.channels(endpoints(survivors), survivors.size(), old.access);
    PutRequest put = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("failover")).setValue(ByteString.copyFromUtf8("x")).build();
    try {
      for (ManagedChannel c : ch) {
        Rpc.call(c, Rpc.PUT, put).get(5, TimeUnit.SECONDS); // connected and warm before the kill
      }
      long t0 = System.nanoTime();
      old.kill();
      for (int i = 0; ; i++) {
        try {
          Rpc.call(ch.get(i % ch.size()), Rpc.PUT, put).get(100, TimeUnit.MILLISECONDS);
          return (System.nanoTime() - t0) / 1e6;
        } catch (Exception notYet) {
          if (System.nanoTime() - t0 > TimeUnit.SECONDS.toNanos(60)) {
            throw new IllegalStateException("no write succeeded within 60 s of the leader's kill");
          }
        }
      }
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("the cluster did not take a write before the kill", e);
    } finally {
      Rpc.shutdown(ch);
      old.launch();
      old.awaitServing();
    }
  }

  private static double median(List<Double> v) {
    double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static void print(int size, boolean tls, int rounds, List<Compare.Workload> suite,
      Map<String, Map<String, List<Compare.Score>>> scores, Map<String, List<Double>> failover) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n## %s, %d members each%s, %d cores, median of %d alternating rounds%n%n",
        LocalDate.now(), size, tls ? ", TLS to clients and peers" : "", Runtime.getRuntime().availableProcessors(), rounds));
    b.append("| workload | etcd ops/s | akka-etcd ops/s | ratio | p50 ms etcd / akka | p99 ms etcd / akka | server CPU µs/op etcd / akka | tool CPU µs/op etcd / akka | notes |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Compare.Workload w : suite) {
      List<Compare.Score> e = scores.get(w.label()).get("etcd");
      List<Compare.Score> a = scores.get(w.label()).get("akka-etcd");
      double er = median(e.stream().map(Compare.Score::rps).toList());
      double ar = median(a.stream().map(Compare.Score::rps).toList());
      b.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | **%.2f** | %.2f / %.2f | %.2f / %.2f | %.0f / %.0f | %.0f / %.0f | %s |%n",
          w.label(), er, ar, ar / er,
          median(e.stream().map(Compare.Score::p50).toList()), median(a.stream().map(Compare.Score::p50).toList()),
          median(e.stream().map(Compare.Score::p99).toList()), median(a.stream().map(Compare.Score::p99).toList()),
          median(e.stream().map(Compare.Score::cpuMicrosPerOp).toList()),
          median(a.stream().map(Compare.Score::cpuMicrosPerOp).toList()),
          median(e.stream().map(Compare.Score::toolCpuMicrosPerOp).toList()),
          median(a.stream().map(Compare.Score::toolCpuMicrosPerOp).toList()),
          String.join("; ", a.stream().map(Compare.Score::note).filter(n -> !n.isEmpty()).distinct().toList())));
    }
    if (!failover.isEmpty()) {
      b.append(String.format(Locale.ROOT, "%n| failover (kill -9 of the leader → first write on a survivor) | etcd | akka-etcd | ratio |%n|---|---:|---:|---:|%n"));
      double e = median(failover.get("etcd"));
      double a = median(failover.get("akka-etcd"));
      b.append(String.format(Locale.ROOT, "| median ms (each run: %s / %s) | %.0f | %.0f | %.2f |%n",
          failover.get("etcd").stream().map(d -> String.format(Locale.ROOT, "%.0f", d)).toList(),
          failover.get("akka-etcd").stream().map(d -> String.format(Locale.ROOT, "%.0f", d)).toList(), e, a, a / e));
    }
    System.out.println(b);
  }
}
