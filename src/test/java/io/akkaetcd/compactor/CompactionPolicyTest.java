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
    assertNull(CompactionPolicy.of("periodic", "0"));
    assertNull(CompactionPolicy.of("revision", "0"));
  }

  @Test
  void periodicRetentionIsHoursOrADuration() {
    assertEquals(Duration.ofHours(5), ((PeriodicPolicy) CompactionPolicy.of("periodic", "5")).period());
    assertEquals(Duration.ofMinutes(90), ((PeriodicPolicy) CompactionPolicy.of("periodic", "1h30m")).period());
    assertEquals(Duration.ofMillis(1500), ((PeriodicPolicy) CompactionPolicy.of("periodic", "1.5s")).period());
  }

  @Test
  void periodicCompactsToTheRevisionOfOnePeriodAgo() {
    CompactionPolicy p = CompactionPolicy.of("periodic", "10m");
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
    CompactionPolicy p = CompactionPolicy.of("periodic", "2");
    assertEquals(Duration.ofMinutes(6), p.sampleInterval());
    long rev = 1;
    OptionalLong first = OptionalLong.empty();
    Duration t = Duration.ZERO;
    for (; t.compareTo(Duration.ofHours(2)) <= 0 && first.isEmpty(); t = t.plusMinutes(6)) {
      first = p.onSample(t, rev);
      rev += 10;
    }
    assertEquals(Duration.ofHours(2).plusMinutes(6), t, "first compaction after two hours");
    assertEquals(OptionalLong.of(1), first);
    OptionalLong next = OptionalLong.empty();
    Duration since = t;
    for (; next.isEmpty(); t = t.plusMinutes(6)) {
      next = p.onSample(t, rev);
      rev += 10;
    }
    assertEquals(Duration.ofHours(1).plusMinutes(6), t.minus(since), "then every hour");
  }

  @Test
  void revisionModeKeepsTheLastRetentionRevisions() {
    CompactionPolicy p = CompactionPolicy.of("revision", "1000");
    assertEquals(Duration.ofMinutes(5), p.sampleInterval());
    assertTrue(p.onSample(Duration.ZERO, 500).isEmpty());
    assertEquals(OptionalLong.of(1500), p.onSample(Duration.ofMinutes(5), 2500));
    assertTrue(p.onSample(Duration.ofMinutes(10), 2500).isEmpty(), "nothing new to compact");
    assertEquals(OptionalLong.of(2000), p.onSample(Duration.ofMinutes(15), 3000));
  }
}
