package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A union of key intervals kept as disjoint, non-touching {@code [start, end)} intervals sorted by
 * start ({@code end == null}: no upper bound). Because the merged intervals neither overlap nor
 * touch, an interval lies in the union iff it lies in the one merged interval starting at or
 * before it: one floor lookup, O(log n) in the number of granted ranges. This answers what etcd's
 * interval tree {@code Contains} answers (coverage by the union, adjacent grants joining), built
 * once when permissions change. Immutable.
 */
final class KeyRanges {
  static final Comparator<ByteString> ORDER = ByteString.unsignedLexicographicalComparator();
  static final KeyRanges EMPTY = new KeyRanges(new TreeMap<>(ORDER));

  /** start → end (null = unbounded). */
  private final TreeMap<ByteString, ByteString> merged;

  private KeyRanges(TreeMap<ByteString, ByteString> merged) {
    this.merged = merged;
  }

  /** One interval to merge: {@code end == null} is unbounded; an empty one is skipped. */
  record Interval(ByteString start, ByteString end) {}

  static KeyRanges of(List<Interval> intervals) {
    List<Interval> sorted = new ArrayList<>(intervals);
    sorted.removeIf(i -> i.end() != null && ORDER.compare(i.start(), i.end()) >= 0);
    sorted.sort(Comparator.comparing(Interval::start, ORDER));
    TreeMap<ByteString, ByteString> merged = new TreeMap<>(ORDER);
    ByteString start = null;
    ByteString end = null;
    for (Interval i : sorted) {
      if (start != null && (end == null || ORDER.compare(i.start(), end) <= 0)) {
        end = max(end, i.end());
        continue;
      }
      if (start != null) {
        merged.put(start, end);
      }
      start = i.start();
      end = i.end();
    }
    if (start != null) {
      merged.put(start, end);
    }
    return merged.isEmpty() ? EMPTY : new KeyRanges(merged);
  }

  private static ByteString max(ByteString a, ByteString b) {
    if (a == null || b == null) {
      return null;
    }
    return ORDER.compare(a, b) >= 0 ? a : b;
  }

  /** Whether {@code [start, end)} ({@code end == null}: unbounded) lies in the union. */
  boolean contains(ByteString start, ByteString end) {
    Map.Entry<ByteString, ByteString> floor = merged.floorEntry(start);
    if (floor == null) {
      return false;
    }
    ByteString mergedEnd = floor.getValue();
    if (mergedEnd == null) {
      return true;
    }
    return end != null && ORDER.compare(mergedEnd, end) >= 0;
  }

  /** Whether the single key lies in the union. */
  boolean containsKey(ByteString key) {
    return contains(key, key.concat(ZERO));
  }

  /** The number of merged intervals (what a lookup is logarithmic in). */
  int size() {
    return merged.size();
  }

  static final ByteString ZERO = ByteString.copyFrom(new byte[] {0});
}
