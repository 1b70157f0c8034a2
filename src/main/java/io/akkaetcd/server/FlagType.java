package io.akkaetcd.server;

import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How one of etcd's flags reads its value, with the reason Go's flag package (or etcd's own flag
 * values) gives for a value it refuses: "parse error", "value out of range", "invalid value", or a
 * URL's fault. {@link #check} returns that reason, or null for a good value.
 */
public enum FlagType {
  /** Go's bool: 1, t, T, TRUE, true, True and the same for false; a bare flag is true. */
  BOOL,
  STRING,
  /** Go's uint and uint64 (64 bits here), base prefixes as strconv.ParseUint(s, 0, 64). */
  UINT,
  /** Go's int and int64. */
  INT,
  /** Go's time.Duration. */
  DURATION,
  /** etcd's unique URL list; "" is let through (etcd lists it as an exception). */
  URLS,
  /** --cors: a URL list, or "*". */
  URLS_OR_STAR,
  /** --max-concurrent-streams: a uint32, whose errors carry strconv's own words. */
  UINT32,
  /** --initial-cluster-state. */
  CLUSTER_STATE,
  /** --discovery-fallback. */
  FALLBACK,
  /** --proxy. */
  PROXY,
  /** A flag etcd 3.4 keeps only to ignore it, with a warning: takes any value, or none. */
  LEGACY;

  private static final Pattern DURATION_PATTERN =
      Pattern.compile("[-+]?(0|((\\d+(\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)");
  private static final BigInteger UINT64_MAX = BigInteger.TWO.pow(64).subtract(BigInteger.ONE);
  private static final BigInteger INT64_MAX = BigInteger.TWO.pow(63).subtract(BigInteger.ONE);
  private static final BigInteger INT64_MIN = BigInteger.TWO.pow(63).negate();

  /** True for types that need no value on the command line ({@code --flag} alone). */
  public boolean isBoolean() {
    return this == BOOL || this == LEGACY;
  }

  /** Null if {@code value} is good, else the reason etcd gives. */
  public String check(String value) {
    return switch (this) {
      case BOOL -> parseBool(value) == null ? "parse error" : null;
      case STRING, LEGACY -> null;
      case UINT -> integer(value, BigInteger.ZERO, UINT64_MAX);
      case INT -> integer(value, INT64_MIN, INT64_MAX);
      case DURATION -> DURATION_PATTERN.matcher(value).matches() ? null : "parse error";
      case URLS -> value.isEmpty() ? null : urls(value);
      case URLS_OR_STAR -> value.equals("*") ? null : urls(value);
      case UINT32 -> uint32(value);
      case CLUSTER_STATE -> oneOf(value, "new", "existing");
      case FALLBACK -> oneOf(value, "proxy", "exit");
      case PROXY -> oneOf(value, "off", "readonly", "on");
    };
  }

  /** The value as etcd holds it: booleans as "true" or "false", everything else as given. */
  public String canonical(String value) {
    return this == BOOL ? parseBool(value).toString() : value;
  }

  /** Go's strconv.ParseBool; null if it refuses. */
  static Boolean parseBool(String s) {
    return switch (s) {
      case "1", "t", "T", "TRUE", "true", "True" -> Boolean.TRUE;
      case "0", "f", "F", "FALSE", "false", "False" -> Boolean.FALSE;
      default -> null;
    };
  }

  /** strconv.ParseInt/ParseUint with base 0: an optional sign, then 0x, 0o, 0b or a leading 0. */
  private static String integer(String s, BigInteger min, BigInteger max) {
    if (min.signum() == 0 && !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      return "parse error";
    }
    BigInteger n = goInteger(s);
    if (n == null) {
      return "parse error";
    }
    return n.compareTo(min) < 0 || n.compareTo(max) > 0 ? "value out of range" : null;
  }

  /**
   * An integer flag's value as Go's strconv.ParseInt(s, 0, ...) reads it (a sign, a 0x, 0b, 0o or
   * 0 prefix for the base, underscores between digits), or null if it is not one.
   */
  static BigInteger goInteger(String s) {
    String digits = s;
    boolean negative = false;
    if (!digits.isEmpty() && (digits.charAt(0) == '-' || digits.charAt(0) == '+')) {
      negative = digits.charAt(0) == '-';
      digits = digits.substring(1);
    }
    int radix = 10;
    String lower = digits.toLowerCase(Locale.ROOT);
    boolean prefixed = lower.startsWith("0x") || lower.startsWith("0b") || lower.startsWith("0o");
    if (prefixed) {
      radix = lower.charAt(1) == 'x' ? 16 : lower.charAt(1) == 'b' ? 2 : 8;
      digits = digits.substring(2);
    } else if (digits.length() > 1 && digits.charAt(0) == '0') {
      radix = 8;
    }
    if (digits.indexOf('_') >= 0) {
      if (!underscoresOk(digits, prefixed)) {
        return null;
      }
      digits = digits.replace("_", "");
    }
    int base = radix;
    if (digits.isEmpty() || !digits.chars().allMatch(c -> Character.digit(c, base) >= 0)) {
      return null;
    }
    BigInteger n = new BigInteger(digits, radix);
    return negative ? n.negate() : n;
  }

  /** Go's rule for underscores in an integer literal: each between two digits (or after a base prefix). */
  private static boolean underscoresOk(String digits, boolean prefixed) {
    char saw = prefixed ? '0' : '^';
    for (char c : digits.toCharArray()) {
      if (c == '_') {
        if (saw != '0') {
          return false;
        }
        saw = '_';
      } else {
        saw = '0';
      }
    }
    return saw != '_';
  }

  /** strconv.ParseUint(s, 0, 32), whose error etcd passes on as it is. */
  private static String uint32(String s) {
    String reason = integer(s, BigInteger.ZERO, BigInteger.TWO.pow(32).subtract(BigInteger.ONE));
    if (reason == null) {
      return null;
    }
    return "strconv.ParseUint: parsing \"" + s + "\": " + (reason.equals("parse error") ? "invalid syntax" : reason);
  }

  private static String oneOf(String s, String... valid) {
    return Set.of(valid).contains(s) ? null : "invalid value";
  }

  /** etcd's URL list: comma-separated, each http, https, unix or unixs://host:port without a path. */
  private static String urls(String list) {
    for (String raw : List.of(list.split(",", -1))) {
      String s = raw.trim();
      URI u;
      try {
        u = new URI(s);
      } catch (URISyntaxException e) {
        return "parse \"" + s + "\": " + e.getReason();
      }
      String scheme = u.getScheme() == null ? "" : u.getScheme();
      if (!List.of("http", "https", "unix", "unixs").contains(scheme)) {
        return "URL scheme must be http, https, unix, or unixs: " + s;
      }
      if (u.getRawAuthority() == null || !u.getRawAuthority().matches(".*:\\d*")) {
        return "URL address does not have the form \"host:port\": " + s;
      }
      if (u.getRawPath() != null && !u.getRawPath().isEmpty()) {
        return "URL must not contain a path: " + s;
      }
    }
    return null;
  }
}
