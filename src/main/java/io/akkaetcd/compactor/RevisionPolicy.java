package io.akkaetcd.compactor;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * etcd's revision auto-compaction: every 5 minutes, keep the last {@code retention} revisions,
 * compacting to current - retention when that is positive and has moved since last time.
 */
final class RevisionPolicy implements CompactionPolicy {
  static final Duration CHECK_INTERVAL = Duration.ofMinutes(5);

  private final long retention;
  private long lastCompacted;

  RevisionPolicy(long retention) {
    this.retention = retention;
  }

  @Override
  public Duration sampleInterval() {
    return CHECK_INTERVAL;
  }

  @Override
  public OptionalLong onSample(Duration now, long currentRevision) {
    long target = currentRevision - retention;
    if (target <= 0 || target == lastCompacted) {
      return OptionalLong.empty();
    }
    lastCompacted = target;
    return OptionalLong.of(target);
  }
}
