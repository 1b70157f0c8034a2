package io.akkaetcd.compactor;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalLong;

/**
 * etcd's periodic auto-compaction: keep history for {@code period}. The revision is sampled every
 * min(period, 1h) / 10; the oldest sample kept is the revision of about one period ago. The first
 * compaction comes one period after start, later ones every min(period, 1h).
 */
public final class PeriodicPolicy implements CompactionPolicy {
  private static final int WINDOWS = 10;

  private final Duration period;
  private final Duration compactInterval;
  private final Duration sampleInterval;
  private final int samplesKept;
  private final ArrayDeque<Long> samples = new ArrayDeque<>();
  private Duration lastCompaction;
  private Duration waitBeforeNext;

  PeriodicPolicy(Duration period) {
    this.period = period;
    this.compactInterval = period.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : period;
    Duration sample = compactInterval.dividedBy(WINDOWS);
    this.sampleInterval = sample.isZero() ? Duration.ofMillis(1) : sample;
    this.samplesKept = (int) (period.toNanos() / sampleInterval.toNanos()) + 1;
    this.waitBeforeNext = period;
  }

  @Override
  public Duration sampleInterval() {
    return sampleInterval;
  }

  @Override
  public OptionalLong onSample(Duration now, long currentRevision) {
    if (lastCompaction == null) {
      lastCompaction = now;
    }
    samples.addLast(currentRevision);
    while (samples.size() > samplesKept) {
      samples.removeFirst();
    }
    if (now.minus(lastCompaction).compareTo(waitBeforeNext) < 0) {
      return OptionalLong.empty();
    }
    lastCompaction = now;
    waitBeforeNext = compactInterval;
    return OptionalLong.of(samples.peekFirst());
  }

  public Duration period() {
    return period;
  }
}
