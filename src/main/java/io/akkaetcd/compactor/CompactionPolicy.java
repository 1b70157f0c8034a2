package io.akkaetcd.compactor;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * When to compact and to which revision (etcd's v3compactor). Pure: the caller samples the
 * current revision every {@link #sampleInterval()} and proposes the compaction it is told to.
 */
public interface CompactionPolicy {

  Duration sampleInterval();

  /**
   * Records a sample of the store revision at {@code now}.
   *
   * @return the revision to compact to now, if any
   */
  OptionalLong onSample(Duration now, long currentRevision);

  /** Compacts to the revision of one {@code period} ago; null (off) for a zero or negative period. */
  static CompactionPolicy periodic(Duration period) {
    return period.isZero() || period.isNegative() ? null : new PeriodicPolicy(period);
  }

  /** Keeps the last {@code revisions} revisions; null (off) for zero or less. */
  static CompactionPolicy revision(long revisions) {
    return revisions <= 0 ? null : new RevisionPolicy(revisions);
  }
}
