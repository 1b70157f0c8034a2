package io.akkaetcd.apply;

/**
 * What one MVCC transaction did, counted as etcd 3.4's metricsTxnWrite counts it: every range
 * (a compare's, a prev_kv's and an ignore_value's too), put and delete call, and the bytes of the
 * keys and values put. Called once per request, on the thread that served it (the applier for
 * writes, any reader for reads): implementations must be thread-safe and take no lock.
 */
@FunctionalInterface
public interface TxnObserver {
  /** Counts nothing. */
  TxnObserver NONE = (ranges, puts, deletes, putBytes) -> { };

  void ended(int ranges, int puts, int deletes, long putBytes);
}
