package io.akkaetcd.server;

import io.akkaetcd.metrics.EtcdMetrics;
import io.akkaetcd.mvcc.CompactionObserver;
import java.util.concurrent.TimeUnit;

/**
 * Feeds etcd 3.4's compaction and defragmentation series; compactions in whole milliseconds, as etcd observes
 * {@code time.Since(start) / time.Millisecond} (a compaction under 1 ms counts as 0).
 */
final class CompactionMetrics implements CompactionObserver {
  private final EtcdMetrics metrics;

  CompactionMetrics(EtcdMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void indexCompacted(long nanos) {
    metrics.indexCompactionPause.observe(TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  @Override
  public void batchDeleted(long nanos) {
    metrics.dbCompactionPause.observe(TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  @Override
  public void defragStarted() {
    metrics.defragInflight.set(1);
  }

  @Override
  public void defragEnded(long nanos) {
    metrics.defragInflight.set(0);
    if (nanos >= 0) {
      metrics.defragDuration.observe(nanos / 1e9);
    }
  }

  @Override
  public void finished(long nanos, long revisions) {
    metrics.dbCompactionTotal.observe(TimeUnit.NANOSECONDS.toMillis(nanos));
    metrics.dbCompactionKeys.inc(revisions);
  }
}
