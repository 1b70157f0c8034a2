package io.akkaetcd.alarm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskSpaceTest {
  @TempDir
  Path dir;

  @Test
  void aReserveAboveTheFreeSpaceIsLowAndExhaustedAndOneByteIsNeither() {
    DiskSpace tight = DiskSpace.of(dir, Long.MAX_VALUE / 2);
    assertTrue(tight.low());
    assertTrue(tight.low(), "the recent reading answers the same");
    assertTrue(tight.exhausted());
    DiskSpace roomy = DiskSpace.of(dir, 1);
    assertFalse(roomy.low());
    assertFalse(roomy.exhausted());
    assertTrue(roomy.recovered());
  }

  @Test
  void noReserveIsNeverLow() {
    assertFalse(DiskSpace.UNLIMITED.low());
    assertFalse(DiskSpace.UNLIMITED.exhausted());
    assertFalse(DiskSpace.of(dir, 0).low());
  }
}
