package io.akkaetcd.compactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CompactionPolicyTest {
  @Test
  void retentionZeroTurnsAutoCompactionOff() {
    assertNull(CompactionPolicy.periodic(Duration.ZERO));
    assertNull(CompactionPolicy.revision(0));
  }

  @Test
  void periodicCompactsToTheRevisionOfOnePeriodAgo() {
    CompactionPolicy p = CompactionPolicy.periodic(Duration.ofMinutes(10));
    assertEquals(Duration.ofMinutes(1), p.sampleInterval());
    // The revision grows by 100 a minute; nothing is compacted before ten minutes have passed.
    for (int minute = 0; minute < 10; minute++) {
      assertTrue(p.onSample(Duration.ofMinutes(minute), 1 + 100L * minute).isEmpty(), "minute " + minute);
    }
    // At minute 10 it compacts to the revision sampled at minute 0.
    assertEquals(OptionalLong.of(1), p.onSample(Duration.ofMinutes(10), 1001));
    for (int minute = 11; minute < 20; minute++) {
      assertTrue(p.onSample(Duration.ofMinutes(minute), 1 + 100L * minute).isEmpty());
    }
    // Then every period again, each time to the revision of one period before.
    assertEquals(OptionalLong.of(1001), p.onSample(Duration.ofMinutes(20), 2001));
  }

  @Test
  void periodicLongerThanAnHourCompactsHourly() {
    CompactionPolicy p = CompactionPolicy.periodic(Duration.ofHours(2));
    assertEquals(Duration.ofMinutes(6), p.sampleInterval());
    java.util.List<Duration> compactedAt = new java.util.ArrayList<>();
    java.util.List<Long> compactedTo = new java.util.ArrayList<>();
    long rev = 1;
    for (Duration t = Duration.ZERO; t.compareTo(Duration.ofHours(4)) <= 0; t = t.plusMinutes(6)) {
      OptionalLong r = p.onSample(t, rev);
      if (r.isPresent()) {
        compactedAt.add(t);
        compactedTo.add(r.getAsLong());
      }
      rev += 10; // 100 revisions an hour
    }
    // First after the two-hour retention, then hourly, each time keeping two hours of history.
    assertEquals(java.util.List.of(Duration.ofHours(2), Duration.ofHours(3), Duration.ofHours(4)), compactedAt);
    assertEquals(java.util.List.of(1L, 101L, 201L), compactedTo);
  }

  @Test
  void revisionModeKeepsTheLastRetentionRevisions() {
    CompactionPolicy p = CompactionPolicy.revision(1000);
    assertEquals(Duration.ofMinutes(5), p.sampleInterval());
    assertTrue(p.onSample(Duration.ZERO, 500).isEmpty());
    assertEquals(OptionalLong.of(1500), p.onSample(Duration.ofMinutes(5), 2500));
    assertTrue(p.onSample(Duration.ofMinutes(10), 2500).isEmpty(), "nothing new to compact");
    assertEquals(OptionalLong.of(2000), p.onSample(Duration.ofMinutes(15), 3000));
  }
}
