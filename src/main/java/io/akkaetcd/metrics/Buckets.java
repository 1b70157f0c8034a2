package io.akkaetcd.metrics;

/** etcd's histogram buckets (upper bounds, seconds), as its metrics.go files declare them. */
public final class Buckets {
  private Buckets() {}

  /** prometheus.ExponentialBuckets(0.001, 2, 14): WAL fsync and backend commit, 1 ms to 8 s. */
  public static final double[] DISK = exponential(0.001, 2, 14);

  /** prometheus.ExponentialBuckets(0.0001, 2, 16): peer round-trip time, 0.1 ms to 3.2 s. */
  public static final double[] PEER_RTT = exponential(0.0001, 2, 16);

  /** prometheus.DefBuckets: go-grpc-prometheus's grpc_server_handling_seconds. */
  public static final double[] DEFAULT = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};

  /** prometheus.ExponentialBuckets(0.5, 2, 14): key index compaction pause, 0.5 ms to 4096 ms. */
  public static final double[] INDEX_COMPACTION_PAUSE = exponential(0.5, 2, 14);

  /** prometheus.ExponentialBuckets(1, 2, 13): db compaction pause per batch, 1 ms to 4096 ms. */
  public static final double[] DB_COMPACTION_PAUSE = exponential(1, 2, 13);

  /** prometheus.ExponentialBuckets(100, 2, 14): db compaction total, 100 ms to 819200 ms. */
  public static final double[] DB_COMPACTION_TOTAL = exponential(100, 2, 14);

  /** prometheus.ExponentialBuckets(.1, 2, 13): backend defragmentation, 0.1 s to 409.6 s. */
  public static final double[] DEFRAG = exponential(.1, 2, 13);

  /** prometheus.ExponentialBuckets(1, 2, 24): lease TTLs, 1 s to 8388608 s. */
  public static final double[] LEASE_TTL = exponential(1, 2, 24);

  /** Events per journal write batch: 1 to 4096. */
  public static final double[] BATCH = exponential(1, 2, 13);

  static double[] exponential(double start, double factor, int count) {
    double[] bounds = new double[count];
    for (int i = 0; i < count; i++) {
      bounds[i] = start * Math.pow(factor, i);
    }
    return bounds;
  }
}
