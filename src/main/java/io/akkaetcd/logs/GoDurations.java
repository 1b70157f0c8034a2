package io.akkaetcd.logs;

import java.math.BigDecimal;

/** Go's time.Duration String() for the durations a warning names: "153.291ms", "1.5s", "800µs". */
public final class GoDurations {
  private GoDurations() {}

  public static String format(long nanos) {
    if (nanos == 0) {
      return "0s";
    }
    if (nanos < 1_000) {
      return nanos + "ns";
    }
    if (nanos < 1_000_000) {
      return scaled(nanos, 3) + "µs";
    }
    if (nanos < 1_000_000_000) {
      return scaled(nanos, 6) + "ms";
    }
    return scaled(nanos, 9) + "s"; // Go writes minutes as "1m0.5s"; no warning here waits that long
  }

  private static String scaled(long nanos, int places) {
    return BigDecimal.valueOf(nanos, places).stripTrailingZeros().toPlainString();
  }
}
