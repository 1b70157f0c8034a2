package io.akkaetcd.compactor;

import io.akkaetcd.server.Flags.FlagException;
import io.akkaetcd.server.GoDuration;
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

  /**
   * The policy for --auto-compaction-mode and --auto-compaction-retention, or null when
   * auto-compaction is off (retention 0). Periodic retention is a Go duration or a whole number
   * of hours; revision retention is a number of revisions.
   */
  static CompactionPolicy of(String mode, String retention) {
    String r = retention.trim();
    if (mode.equals("revision")) {
      long revisions;
      try {
        revisions = Long.parseLong(r);
      } catch (NumberFormatException e) {
        throw new FlagException("invalid auto-compaction-retention \"" + retention + "\" for revision mode");
      }
      return revisions <= 0 ? null : new RevisionPolicy(revisions);
    }
    Duration period = GoDuration.parseHoursOrDuration(r);
    return period.isZero() ? null : new PeriodicPolicy(period);
  }
}
