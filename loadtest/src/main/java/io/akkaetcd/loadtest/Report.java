package io.akkaetcd.loadtest;

import io.grpc.Status;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Latencies and errors of one run, printed as etcd's benchmark prints them (summary, percentiles
 * p10 … p99.9, errors) plus one machine-readable {@code RESULT} line that the comparison reads.
 */
final class Report {
  static final double[] PERCENTILES = {10, 25, 50, 75, 90, 95, 99, 99.9};

  final String name;
  private final long[] latencies;
  private final AtomicInteger count = new AtomicInteger();
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
  private volatile long startNanos;
  private volatile long endNanos;
  /** Workload-specific figures (e.g. events delivered, duplicates), printed and put in the RESULT line. */
  final Map<String, Object> extra = new TreeMap<>();

  Report(String name, int capacity) {
    this.name = name;
    this.latencies = new long[capacity];
  }

  void start() {
    startNanos = System.nanoTime();
  }

  void end() {
    endNanos = System.nanoTime();
  }

  /** Records one successful operation's latency; beyond the capacity it is counted only. */
  void ok(long nanos) {
    int i = count.getAndIncrement();
    if (i < latencies.length) latencies[i] = nanos;
  }

  void error(Status status) {
    String key = status.getCode() + ": " + status.getDescription();
    errors.computeIfAbsent(key, k -> new LongAdder()).increment();
  }

  void error(String what) {
    errors.computeIfAbsent(what, k -> new LongAdder()).increment();
  }

  long okCount() {
    return count.get();
  }

  long errorCount() {
    return errors.values().stream().mapToLong(LongAdder::sum).sum();
  }

  double seconds() {
    return (endNanos - startNanos) / 1e9;
  }

  double throughput() {
    return okCount() / seconds();
  }

  /** Latency at percentile p, in milliseconds (NaN without samples). */
  double percentileMs(double p) {
    long[] sorted = sorted();
    if (sorted.length == 0) return Double.NaN;
    int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, idx))] / 1e6;
  }

  private long[] sortedCache;

  private synchronized long[] sorted() {
    int n = Math.min(count.get(), latencies.length);
    if (sortedCache == null || sortedCache.length != n) {
      sortedCache = Arrays.copyOf(latencies, n);
      Arrays.sort(sortedCache);
    }
    return sortedCache;
  }

  String print() {
    long[] s = sorted();
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%n%s%nSummary:%n  Total:\t%.4f secs.%n", name, seconds()));
    if (s.length > 0) {
      double avg = Arrays.stream(s).average().orElse(0) / 1e9;
      double var = Arrays.stream(s).mapToDouble(x -> Math.pow(x / 1e9 - avg, 2)).sum() / s.length;
      b.append(String.format(Locale.ROOT, "  Slowest:\t%.4f secs.%n  Fastest:\t%.4f secs.%n  Average:\t%.4f secs.%n  Stddev:\t%.4f secs.%n",
          s[s.length - 1] / 1e9, s[0] / 1e9, avg, Math.sqrt(var)));
    }
    b.append(String.format(Locale.ROOT, "  Requests/sec:\t%.4f%n", throughput()));
    if (s.length > 0) {
      b.append("\nLatency distribution:\n");
      for (double p : PERCENTILES) {
        b.append(String.format(Locale.ROOT, "  %s%% in %.4f secs.%n", fmt(p), percentileMs(p) / 1e3));
      }
    }
    extra.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %s:\t%s%n", k, v)));
    if (!errors.isEmpty()) {
      b.append("\nError distribution:\n");
      new TreeMap<>(errors).forEach((k, v) -> b.append(String.format("  [%d]\t%s%n", v.sum(), k)));
    }
    b.append(resultLine()).append('\n');
    return b.toString();
  }

  /** One line of JSON, prefixed with RESULT, for scripts. */
  String resultLine() {
    StringBuilder j = new StringBuilder("RESULT {");
    j.append(String.format(Locale.ROOT, "\"workload\":\"%s\",\"ok\":%d,\"errors\":%d,\"seconds\":%.3f,\"rps\":%.1f",
        name, okCount(), errorCount(), seconds(), throughput()));
    for (double p : PERCENTILES) {
      double v = percentileMs(p);
      if (!Double.isNaN(v)) j.append(String.format(Locale.ROOT, ",\"p%s_ms\":%.3f", fmt(p).replace('.', '_'), v));
    }
    extra.forEach((k, v) -> j.append(",\"").append(k).append("\":")
        .append(v instanceof Number ? v.toString() : "\"" + v + "\""));
    return j.append('}').toString();
  }

  private static String fmt(double p) {
    return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
  }
}
