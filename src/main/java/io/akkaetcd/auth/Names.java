package io.akkaetcd.auth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * etcd's order of user and role names: Go compares strings as UTF-8 bytes (sort.Strings, bbolt's
 * bucket order), which differs from {@link String#compareTo} beyond the BMP.
 */
final class Names {
  static final Comparator<String> ORDER = (a, b) ->
      Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  private Names() {}
}
