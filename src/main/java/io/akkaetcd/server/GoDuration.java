package io.akkaetcd.server;

import io.akkaetcd.server.Flags.FlagException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses Go's duration syntax ("1h30m", "90s", "1.5h") as etcd's flags accept it. */
public final class GoDuration {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

  private GoDuration() {}

  /** A bare whole number means hours (etcd's periodic retention); otherwise a Go duration. */
  public static Duration parseHoursOrDuration(String s) {
    if (s.matches("\\d+")) {
      return Duration.ofHours(Long.parseLong(s));
    }
    return parse(s, "auto-compaction-retention");
  }

  /**
   * A Go duration ("10m", "1h30m", "500ms", "-5s", and "0" without a unit) for the flag named
   * {@code flag}, as time.ParseDuration reads it.
   */
  public static Duration parse(String given, String flag) {
    String s = given;
    boolean negative = false;
    if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      negative = s.charAt(0) == '-';
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.isEmpty()) {
      throw new FlagException("invalid --" + flag + " \"" + given + "\"");
    }
    Matcher m = PART.matcher(s);
    int at = 0;
    double nanos = 0;
    while (at < s.length() && m.find(at) && m.start() == at) {
      double n = Double.parseDouble(m.group(1));
      nanos += n * switch (m.group(2)) {
        case "ns" -> 1d;
        case "us", "µs" -> 1e3;
        case "ms" -> 1e6;
        case "s" -> 1e9;
        case "m" -> 60e9;
        default -> 3600e9;
      };
      at = m.end();
    }
    if (at != s.length()) {
      throw new FlagException("invalid --" + flag + " \"" + given + "\": not a duration");
    }
    return Duration.ofNanos((long) (negative ? -nanos : nanos));
  }
}
