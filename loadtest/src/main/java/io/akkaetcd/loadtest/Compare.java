package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
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
 * Runs the same suite against real etcd and akka-etcd, one after the other on the same machine, and
 * prints akka-etcd ÷ etcd for every figure. Run {@code loadtest/compare --help}.
 */
public final class Compare {
  /** One benchmark run of the suite: a label and the benchmark command line. */
  record Workload(String label, String args) {}

  /** What one server scored on one workload; the tool's CPU per operation while it ran there. */
  record Score(double rps, double p50, double p99, double cpuMicrosPerOp, double toolCpuMicrosPerOp, double peakRssMiB,
      String note) {}

  private static final String USAGE = String.join("\n",
      "usage: loadtest/compare [--suite quick|full] [--rounds 3] [--big] [--etcd PATH] [--akka-etcd PATH] [--work DIR]",
      "                        [--idle-watches 100000] [--held-leases 100000] [--only LABEL-PREFIX] [--members N]",
      "                        [--tls] [--user] [--warmup-runs 7 (8 with --members)] [--warmup-workloads 0]",
      "       loadtest/compare --metrics-ab [--suite quick|full] [--rounds 3] [--akka-etcd PATH] [--work DIR]",
      "",
      "Starts etcd and akka-etcd (one member each, same flags, free loopback ports, fresh data dirs),",
      "warms both up, runs each workload on both in turn, --rounds times in alternating order, and",
      "prints a table of medians and akka-etcd / etcd ratios with server CPU per operation. Then, on a",
      "fresh pair, the memory per held lease and per idle watch (0 skips them). --big adds 1,000,000",
      "keys (8-byte keys, 256-byte values): RSS and restart time. --warmup-workloads N adds N unmeasured",
      "runs of every measured workload to the put warm-up (one member, plain and --tls/--user suites): steady-state figures.",
      "",
      "--members 3 compares clusters instead: an etcd and an akka-etcd cluster of that size, puts and",
      "ranges with clients spread over the members, then leader failover (kill -9 of the leader).",
      "",
      "--tls serves clients (https) and peers with one certificate from a CA made for the run; the",
      "tool's clients (the JDK's TLS) trust that CA. With one member the suite is then puts over TLS",
      "and new TLS connections per second (full and resumed handshakes counted); with --members 3",
      "the cluster suite, peers over TLS too. --user compares auth instead: puts with auth off, then",
      "auth on (root, user bench with one prefix, user bench1000 with 1,000) puts as bench and as",
      "bench1000, and Authenticate calls per second. --tls --user runs the auth suite over TLS.",
      "",
      "--metrics-ab compares akka-etcd with itself instead, metrics on against --experimental-metrics-off:",
      "puts with 64 clients and with 1, alternating rounds, medians (issue #29: at most 3 % lost). No etcd.");

  /** The comparison's put workload with 64 clients, --total aside (loadtest/in-process runs it too). */
  static final String PUTS_64_CLIENTS = "put --clients 64 --conns 8 --key-space-size 100000";

  /**
   * #33 item 3: 2,000 clients flooding puts, each refused put sent again after a doubling backoff.
   * Read against "put, 64 clients" of the same run: admitted p99, admitted puts/s, peak RSS.
   */
  static final String PUTS_OVERLOAD = "put-overload --clients 2000 --conns 16 --key-space-size 100000";

  /** A count_only range over every key (#33: etcd walks them, akka-etcd counts in O(log n)). */
  static final String COUNT_ALL = "range --all-keys true --count-only true --consistency s --clients 16 --conns 4";

  /** Put runs in each server's warm-up (--warmup-runs): 50,000 puts each, 40,000 on a cluster. */
  static int warmupRuns = 7;

  /**
   * Unmeasured runs of each measured workload after the put warm-up (--warmup-workloads; one
   * member: the plain, --tls and --user suites): its first rounds no longer pay for the JIT.
   */
  static int warmupWorkloads = 0;

  private Compare() {}

  static List<Workload> suite(String name) {
    boolean full = name.equals("full");
    int n = full ? 50_000 : 10_000;
    return List.of(
        new Workload("put, 1 client", "put --clients 1 --total " + (full ? 5000 : 1000)),
        new Workload("put, 64 clients", PUTS_64_CLIENTS + " --total " + n),
        new Workload("put, 2,000 clients (overload)", PUTS_OVERLOAD + " --total " + n),
        new Workload("range l, 64 clients", "range bench-range --consistency l --clients 64 --conns 8 --total " + n),
        new Workload("range s, 64 clients", "range bench-range --consistency s --clients 64 --conns 8 --total " + n),
        new Workload("count_only, all 100,000 keys, 16 clients", COUNT_ALL + " --total " + n / 10),
        new Workload("txn-put (CAS), 64 clients", "txn-put --clients 64 --conns 8 --total " + n),
        new Workload("txn-mixed, 64 clients", "txn-mixed --clients 64 --conns 8 --key-space-size 10000 --total " + n),
        new Workload("lease-keepalive, 64 clients, 1000 leases", "lease-keepalive --clients 64 --conns 8 --leases 1000 --total " + n),
        new Workload("gateway put, 64 clients, 64 HTTP/1.1 conns", "gateway-put --clients 64 --conns 8 --key-space-size 100000 --total " + n / 2),
        new Workload("gateway watch-latency, 1 chunked watcher", "gateway-watch-latency --put-rate 100 --put-total " + (full ? 1000 : 300)),
        // #26: the per-connection cost without TLS, to split the TLS row's cost into handshake and the rest
        new Workload("new connections (connect, 1 Range, close), 8 clients", "connect --clients 8 --conns 1 --total " + (full ? 5_000 : 1_000)),
        new Workload("lock+unlock, 64 clients over 64 names", "lock --clients 64 --conns 8 --names 64 --total " + n),
        new Workload("watch-latency, 10 streams x 100 watchers", "watch-latency --streams 10 --watchers-per-stream 100 --conns 2 --put-rate 100 --put-total " + (full ? 1000 : 300)),
        new Workload("watch-latency, 10 streams x 100 watchers, 500 puts/s", "watch-latency --streams 10 --watchers-per-stream 100 --conns 2 --put-rate 500 --put-total " + (full ? 5000 : 1500)),
        FRESH_WATCH,
        slowWatcher(0, "own"), slowWatcher(1, "own"), slowWatcher(1, "shared"), slowWatcher(20, "own"));
  }

  /**
   * #33 item 4: 100 watchers on 10 streams over 2 connections, 200 puts/s of 1 KiB, progress
   * requested on each stream every 200 ms; beside them {@code slow} streams that never read, on a
   * connection of their own or on the watchers' first one. The note gives the server's RSS growth
   * (20 stalled streams: each could otherwise pile up the whole run's events, 6 MB).
   */
  static Workload slowWatcher(int slow, String conn) {
    String label = slow == 0 ? "slow-watcher: none (baseline), 100 watchers, 200 puts/s of 1 KiB"
        : "slow-watcher: " + slow + " stalled stream" + (slow > 1 ? "s" : "") + ", " + conn + " connection, 100 watchers, 200 puts/s of 1 KiB";
    return new Workload(label, "slow-watcher --streams 10 --watchers-per-stream 10 --conns 2 --put-rate 200 --val-size 1024"
        + " --put-total 3000 --slow-watchers " + slow + " --slow-conn " + conn);
  }

  /**
   * Issue #34's fresh-member case: watchers and puts on a server launched just before, no warm-up
   * (each round on a new server and data dir, so the JIT starts cold every time).
   */
  static final Workload FRESH_WATCH = new Workload("watch-latency on a fresh member, 4 streams x 25 watchers, 500 puts/s of 1 KiB",
      "watch-latency --streams 4 --watchers-per-stream 25 --conns 1 --put-rate 500 --val-size 1024 --put-total 2500");

  public static void main(String[] args) throws Exception {
    Options o = new Options(args);
    if (o.has("help")) {
      System.out.println(USAGE);
      return;
    }
    String suiteName = o.string("suite", "full");
    boolean big = o.bool("big", false);
    int rounds = o.integer("rounds", 3);
    String etcd = o.string("etcd", "etcd");
    String root = System.getProperty("akka-etcd.home", ".");
    String akka = o.string("akka-etcd", root + "/bin/akka-etcd");
    // a fresh temporary directory only when --work names none
    Path work = o.has("work") ? Path.of(o.string("work", "")) : Files.createTempDirectory("compare");
    Files.createDirectories(work.resolve("suite"));
    Files.createDirectories(work.resolve("memory"));
    int idleWatches = o.integer("idle-watches", 100_000);
    int heldLeases = o.integer("held-leases", 100_000);
    String only = o.string("only", "");
    int members = o.integer("members", 1);
    warmupRuns = o.integer("warmup-runs", members > 1 ? 8 : 7);
    warmupWorkloads = o.integer("warmup-workloads", 0);
    boolean tlsOn = o.bool("tls", false);
    boolean user = o.bool("user", false);
    boolean metricsAb = o.bool("metrics-ab", false);
    o.checkAllUsed();
    if (metricsAb) {
      MetricsAb.run(akka, work, suiteName, rounds);
      return;
    }
    TlsFiles tls = tlsOn ? TlsFiles.create(work.resolve("tls")) : null;
    if (members > 1) {
      if (user) throw new IllegalArgumentException("--user compares one member each; drop --members");
      ClusterCompare.run(etcd, akka, work, members, rounds, only, tls);
      return;
    }
    if (tlsOn || user) {
      SecureCompare.run(etcd, akka, work.resolve("suite"), suiteName, rounds, only, tls, user);
      return;
    }

    List<Workload> suite = suite(suiteName).stream().filter(w -> w.label().startsWith(only)).toList();
    Map<String, Map<String, List<Score>>> scores = new LinkedHashMap<>();
    Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
    List<Workload> warm = suite.stream().filter(w -> w != FRESH_WATCH).toList();
    if (!warm.isEmpty() || big) try (ServerUnderTest e = new ServerUnderTest(ServerUnderTest.Kind.ETCD, etcd, work.resolve("suite"), List.of());
         ServerUnderTest a = new ServerUnderTest(ServerUnderTest.Kind.AKKA_ETCD, akka, work.resolve("suite"), List.of())) {
      List<ServerUnderTest> servers = List.of(e, a);
      for (ServerUnderTest server : servers) {
        Map<String, Double> fig = new LinkedHashMap<>();
        figures.put(server.name(), fig);
        fig.put("start ms (empty)", (double) server.start());
        fig.put("RSS MiB at start", server.rssBytes() / 1048576.0);
        System.err.printf("== %s (pid %d) on %s%n", server.name(), server.pid(), server.endpoint);
      }
      for (ServerUnderTest server : servers) {
        seed(server);
        warmUp(server);
        warmWorkloads(server, warm);
      }
      measureRounds(warm, servers, rounds, scores);
      peakRss(warm, scores, figures);
      for (ServerUnderTest server : servers) {
        figures.get(server.name()).put("RSS MiB after suite", server.rssBytes() / 1048576.0);
      }
      if (big) {
        for (ServerUnderTest server : servers) {
          bigData(server, figures.get(server.name()));
        }
      }
    }
    if (suite.contains(FRESH_WATCH)) {
      freshRounds(FRESH_WATCH, etcd, akka, work.resolve("fresh"), rounds, scores);
    }
    // Memory on a fresh pair, one server at a time: leases (held), then idle watches.
    // --enable-pprof only lets the memory figures run Go's collector first (see liveHeapBytes).
    if (idleWatches > 0 || heldLeases > 0) {
      try (ServerUnderTest e = new ServerUnderTest(ServerUnderTest.Kind.ETCD, etcd, work.resolve("memory"), List.of("--enable-pprof"));
           ServerUnderTest a = new ServerUnderTest(ServerUnderTest.Kind.AKKA_ETCD, akka, work.resolve("memory"), List.of())) {
        for (ServerUnderTest server : List.of(e, a)) {
          Map<String, Double> fig = figures.computeIfAbsent(server.name(), k -> new LinkedHashMap<>());
          server.start();
          if (heldLeases > 0) memory(server, "lease", heldLeases, fig, () -> holdLeases(server, heldLeases));
          if (idleWatches > 0) memory(server, "watch", idleWatches, fig, () -> holdWatches(server, idleWatches, 10));
          // many streams of few watches each, as clients that watch a handful of keys each hold them
          if (idleWatches > 0) memory(server, "watch on 1,000 streams", idleWatches, fig, () -> holdWatches(server, idleWatches, 1000));
          server.stop();
        }
      }
    }
    print(suiteName, rounds, suite, scores, figures);
  }

  /**
   * Warm-up, both alike, until akka-etcd's JIT compiler has settled, on new connections each run
   * as every measured round opens its own; a single client's put has its own
   * (docs/results-history.md, 2026-11-23 late and 2026-11-24 evening). --warmup-runs 0 only for
   * trying a workload out: figures from cold servers are not comparable.
   */
  static void warmUp(ServerUnderTest server) throws InterruptedException {
    for (int run = 0; run < warmupRuns; run++) {
      runQuiet(server, PUTS_64_CLIENTS + " --total 50000");
    }
    runQuiet(server, "put --clients 1 --total 2000");
  }

  /** --warmup-workloads unmeasured runs of each workload of {@code suite}, after {@link #warmUp}. */
  static void warmWorkloads(ServerUnderTest server, List<Workload> suite) throws InterruptedException {
    for (int run = 0; run < warmupWorkloads; run++) {
      for (Workload w : suite) {
        runQuiet(server, w.args());
      }
    }
  }

  /**
   * Each workload runs on both servers (etcd first) in turn, the order alternating, {@code rounds}
   * times: the machine's drift then falls on both, and the median of the rounds is reported.
   */
  static void measureRounds(List<Workload> suite, List<ServerUnderTest> servers, int rounds,
      Map<String, Map<String, List<Score>>> scores) throws InterruptedException {
    for (Workload w : suite) {
      for (int round = 0; round < rounds; round++) {
        List<ServerUnderTest> order = round % 2 == 0 ? servers : List.of(servers.get(1), servers.get(0));
        for (ServerUnderTest server : order) {
          scores.computeIfAbsent(w.label(), k -> new LinkedHashMap<>())
              .computeIfAbsent(server.name(), k -> new ArrayList<>()).add(measure(server, w));
        }
      }
    }
  }

  /** {@code w} on servers launched just before it, a new pair each round, in alternating order. */
  static void freshRounds(Workload w, String etcd, String akka, Path work, int rounds,
      Map<String, Map<String, List<Score>>> scores) throws Exception {
    for (int round = 0; round < rounds; round++) {
      List<ServerUnderTest.Kind> order = round % 2 == 0 ? List.of(ServerUnderTest.Kind.ETCD, ServerUnderTest.Kind.AKKA_ETCD)
          : List.of(ServerUnderTest.Kind.AKKA_ETCD, ServerUnderTest.Kind.ETCD);
      for (ServerUnderTest.Kind kind : order) {
        Path dir = Files.createDirectories(work.resolve("round-" + round + "-" + kind));
        try (ServerUnderTest server = new ServerUnderTest(kind, kind == ServerUnderTest.Kind.ETCD ? etcd : akka, dir, List.of())) {
          server.start();
          scores.computeIfAbsent(w.label(), k -> new LinkedHashMap<>())
              .computeIfAbsent(server.name(), k -> new ArrayList<>()).add(measure(server, w));
        }
      }
    }
  }

  static void seed(ServerUnderTest server) throws Exception {
    List<ManagedChannel> ch = channels(server, 1);
    try {
      Rpc.call(ch.get(0), Rpc.PUT, PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("bench-range"))
          .setValue(ByteString.copyFrom(new byte[256])).build()).get();
    } finally {
      Rpc.shutdown(ch);
    }
  }

  static List<ManagedChannel> channels(ServerUnderTest server, int conns) {
    return Rpc.channels(List.of(server.endpoint), conns, server.access);
  }

  /** One benchmark run on fresh connections; {@code --user name:password} in the args authenticates them. */
  static List<Report> runQuiet(ServerUnderTest server, String args) throws InterruptedException {
    Options o = new Options(args.split(" "));
    ClientAccess access = server.access.as(o.string("user", ""));
    List<ManagedChannel> ch = Rpc.channels(List.of(server.endpoint), o.integer("conns", 1), access);
    try {
      return Benchmark.run(o, ch, () -> Rpc.channels(List.of(server.endpoint), 1, access).get(0));
    } finally {
      Rpc.shutdown(ch);
    }
  }

  static Score measure(ServerUnderTest server, Workload w) throws InterruptedException {
    long cpu0 = server.cpuMillis();
    long tool0 = ProcessCpu.toolMillis();
    long rss0 = server.rssBytes();
    List<Report> reports;
    long peakRss;
    try (RssSampler rss = new RssSampler(server)) {
      reports = runQuiet(server, w.args());
      peakRss = rss.peakBytes();
    }
    long rssGrowth = server.rssBytes() - rss0;
    long tool = ProcessCpu.toolMillis() - tool0;
    long cpu = server.cpuMillis() - cpu0;
    Report r = reports.get(reports.size() - 1);
    System.out.println("[" + server.name() + "] " + w.label() + ": " + r.resultLine());
    String note = r.errorCount() > 0 ? r.errorCount() + " errors" : "";
    Object refused = r.extra.get("refused");
    if (refused != null) note += " " + refused + " refused";
    Object faulty = r.extra.get("faulty_watchers");
    if (faulty != null && ((Number) faulty).longValue() > 0) note += " " + faulty + " watchers missed/reordered events";
    Object progress = r.extra.get("progress_answers");
    if (progress != null) {
      note += String.format(Locale.ROOT, " RSS %+.0f MiB, %s progress answers", rssGrowth / 1048576.0, progress);
    }
    Object resumed = r.extra.get("tls_resumed_handshakes");
    if (resumed != null) {
      long handshakes = ((Number) resumed).longValue() + ((Number) r.extra.get("tls_full_handshakes")).longValue();
      note += " " + resumed + " of " + handshakes + " TLS handshakes resumed";
    }
    long ok = Math.max(1, r.okCount());
    return new Score(r.throughput(), r.percentileMs(50), r.percentileMs(99), cpu * 1000.0 / ok, tool * 1000.0 / ok,
        peakRss / 1048576.0, note.trim());
  }

  /** The median peak RSS of each server during the overload workload, into its figures. */
  static void peakRss(List<Workload> suite, Map<String, Map<String, List<Score>>> scores,
      Map<String, Map<String, Double>> figures) {
    suite.stream().filter(w -> w.args().startsWith(PUTS_OVERLOAD))
        .forEach(w -> scores.get(w.label()).forEach((server, s) ->
            figures.get(server).put("peak RSS MiB, " + w.label(), median(s, Score::peakRssMiB))));
  }

  interface Holder {
    AutoCloseable open() throws Exception;
  }

  /** Memory per item: RSS and live heap before and while {@code count} items are held. */
  private static void memory(ServerUnderTest server, String what, int count, Map<String, Double> fig, Holder holder) throws Exception {
    long rss0 = server.rssBytes();
    long heap0 = server.liveHeapBytes();
    try (AutoCloseable held = holder.open()) {
      long heap1 = server.liveHeapBytes();
      long rss1 = server.rssBytes();
      fig.put("RSS bytes per " + what + " (" + count + ")", (rss1 - rss0) / (double) count);
      fig.put("live heap bytes per " + what + " (" + count + ")", (heap1 - heap0) / (double) count);
      System.err.printf("[%s] %d %ss: RSS %+d bytes, live heap %+d bytes%n", server.name(), count, what, rss1 - rss0, heap1 - heap0);
    }
  }

  /** Idle watches over {@code streams} streams (on 10 connections), held until closed. */
  private static AutoCloseable holdWatches(ServerUnderTest server, int count, int streams) throws InterruptedException {
    List<ManagedChannel> ch = channels(server, 10);
    try {
      WatchLoad.Watches watches = WatchLoad.idle(ch, streams, count / streams);
      return () -> {
        watches.close();
        Rpc.shutdown(ch);
      };
    } catch (RuntimeException | InterruptedException e) {
      Rpc.shutdown(ch);
      throw e;
    }
  }

  private static AutoCloseable holdLeases(ServerUnderTest server, int count) throws InterruptedException {
    List<ManagedChannel> ch = channels(server, 4);
    try {
      Report r = LeaseLoad.grant(ch, 64, count, 3600, null);
      if (r.errorCount() > 0) System.err.println(r.print());
    } finally {
      Rpc.shutdown(ch);
    }
    return () -> {};
  }

  /** 1,000,000 keys of 8 bytes with 256-byte values: RSS after loading, and time to restart. */
  private static void bigData(ServerUnderTest server, Map<String, Double> fig) throws InterruptedException {
    List<Report> r = runQuiet(server, "put --clients 64 --conns 8 --key-space-size 1000000 --sequential-keys true --val-size 256 --total 1000000");
    fig.put("1M keys: load seconds", r.get(0).seconds());
    fig.put("1M keys: RSS MiB", server.rssBytes() / 1048576.0);
    // ten times the suite's keys: a count that does not walk them keeps its latency
    fig.put("1M keys: count_only p50 ms", runQuiet(server, COUNT_ALL + " --total 1000").get(0).percentileMs(50));
    for (int ranges : new int[] {1, 8}) {
      bigRanges(server, ranges, fig);
    }
    server.stop();
    fig.put("1M keys: restart ms", (double) server.start());
    fig.put("1M keys: RSS MiB after restart", server.rssBytes() / 1048576.0);
  }

  /**
   * {@code ranges} ranges over all 1,000,000 keys at once, no limit: the server's peak RSS over its
   * RSS before them, and the time (#33 item 1). Every answer must hold every key.
   */
  private static void bigRanges(ServerUnderTest server, int ranges, Map<String, Double> fig) throws InterruptedException {
    String label = ranges == 1 ? "1M keys: a full range" : "1M keys: " + ranges + " full ranges at once";
    long before = server.rssBytes();
    long beforeAnon = server.rssAnonBytes();
    BigRange.Result r;
    long peak;
    long peakAnon;
    try (RssSampler rss = new RssSampler(server)) {
      r = BigRange.run(server.endpoint, ranges);
      peak = rss.peakBytes();
      peakAnon = rss.peakAnonBytes();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      System.err.printf("== %s: %s failed: %s%n", server.name(), label, e);
      fig.put(label + ", failed", 1.0);
      return;
    }
    for (BigRange.Answer a : r.answers()) {
      System.err.printf("== %s: %s: %d kvs, count %d, %d bytes, digest %s%n", server.name(), label, a.kvs(), a.count(),
          a.bytes(), a.digest());
    }
    fig.put(label + ", peak RSS growth MiB", (peak - before) / 1048576.0);
    fig.put(label + ", peak anonymous RSS growth MiB", (peakAnon - beforeAnon) / 1048576.0);
    fig.put(label + ", seconds", r.seconds());
    fig.put(label + ", response MiB", r.answers().get(0).bytes() / 1048576.0);
  }

  /** The median of a figure over the rounds. */
  static <T> double median(List<T> rounds, java.util.function.ToDoubleFunction<T> f) {
    double[] v = rounds.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  static void print(String suiteName, int rounds, List<Workload> suite, Map<String, Map<String, List<Score>>> scores,
      Map<String, Map<String, Double>> figures) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n## %s, suite %s, 1 member, %d cores, median of %d alternating rounds%n%n",
        LocalDate.now(), suiteName, Runtime.getRuntime().availableProcessors(), rounds));
    b.append("| workload | etcd ops/s | akka-etcd ops/s | ratio | p50 ms etcd / akka | p50 ratio | p99 ms etcd / akka | p99 ratio | server CPU µs/op etcd / akka | tool CPU µs/op etcd / akka | notes |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Workload w : suite) {
      List<Score> e = scores.get(w.label()).get("etcd");
      List<Score> a = scores.get(w.label()).get("akka-etcd");
      double er = median(e, Score::rps), ar = median(a, Score::rps);
      double e50 = median(e, Score::p50), a50 = median(a, Score::p50);
      double e99 = median(e, Score::p99), a99 = median(a, Score::p99);
      b.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | **%.2f** | %.2f / %.2f | %.2f | %.2f / %.2f | %.2f | %.0f / %.0f | %.0f / %.0f | %s |%n",
          w.label(), er, ar, ar / er, e50, a50, a50 / e50, e99, a99, a99 / e99,
          median(e, Score::cpuMicrosPerOp), median(a, Score::cpuMicrosPerOp),
          median(e, Score::toolCpuMicrosPerOp), median(a, Score::toolCpuMicrosPerOp), notes(e, a)));
    }
    b.append("\n| figure | etcd | akka-etcd | ratio |\n|---|---:|---:|---:|\n");
    Map<String, Double> fe = figures.getOrDefault("etcd", Map.of());
    Map<String, Double> fa = figures.getOrDefault("akka-etcd", Map.of());
    for (String k : fe.keySet()) {
      // a ratio (÷ in its name) gets two decimals, a size or time one
      String f = k.contains("÷") ? "| %s | %.2f | %.2f | %.2f |%n" : "| %s | %.1f | %.1f | %.2f |%n";
      b.append(String.format(Locale.ROOT, f, k, fe.get(k), fa.getOrDefault(k, Double.NaN),
          fa.getOrDefault(k, Double.NaN) / fe.get(k)));
    }
    System.out.println(b);
  }

  private static String notes(List<Score> e, List<Score> a) {
    List<String> n = new ArrayList<>();
    e.stream().map(Score::note).filter(x -> !x.isEmpty()).distinct().forEach(x -> n.add("etcd: " + x));
    a.stream().map(Score::note).filter(x -> !x.isEmpty()).distinct().forEach(x -> n.add("akka-etcd: " + x));
    return String.join("; ", n);
  }

}
