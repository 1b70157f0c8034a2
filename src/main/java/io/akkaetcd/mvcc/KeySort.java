package io.akkaetcd.mvcc;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Sorts the histories read back at open into etcd's key order ({@link KeyOrder#BYTES}). Each key
 * is reduced to the eight bytes after the prefix all keys share, as an unsigned number beside its
 * position in two primitive arrays; those are radix-sorted a byte at a time (passes where every key
 * has the same byte are skipped), so the sort never reaches into the keys scattered over the heap.
 * Keys whose eight bytes tie are then put in order by comparing them whole, run by run.
 *
 * <p>Correct for any keys: keys that share their first bytes order as their next bytes do, and a
 * key shorter than the window is padded with zeros, which can only tie, never misorder.
 */
final class KeySort {
  private static final Comparator<KeyIndex> BY_KEY = (a, b) -> KeyOrder.BYTES.compare(a.key(), b.key());

  private KeySort() {}

  /** {@code histories} in key order; the array itself is left as it was. */
  static KeyIndex[] sort(KeyIndex[] histories) {
    int n = histories.length;
    int skip = sharedPrefix(histories);
    long[] window = new long[n];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      window[i] = window(histories[i].key(), skip);
      order[i] = i;
    }
    radixSort(window, order);
    KeyIndex[] sorted = new KeyIndex[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = histories[order[i]];
    }
    for (int from = 0; from < n; ) {
      int to = from + 1;
      while (to < n && window[to] == window[from]) {
        to++;
      }
      if (to - from > 1) {
        Arrays.parallelSort(sorted, from, to, BY_KEY);
      }
      from = to;
    }
    return sorted;
  }

  /** How many leading bytes every key has in common. */
  private static int sharedPrefix(KeyIndex[] histories) {
    if (histories.length == 0) {
      return 0;
    }
    byte[] first = histories[0].key();
    int shared = first.length;
    for (int i = 1; i < histories.length && shared > 0; i++) {
      byte[] k = histories[i].key();
      int m = Arrays.mismatch(first, 0, shared, k, 0, Math.min(shared, k.length));
      if (m >= 0) {
        shared = m;
      }
    }
    return shared;
  }

  /** Bytes {@code skip} to {@code skip + 8} of {@code key}, big-endian, zero-padded. */
  private static long window(byte[] key, int skip) {
    long w = 0;
    for (int i = skip; i < skip + 8; i++) {
      w = (w << 8) | (i < key.length ? key[i] & 0xff : 0);
    }
    return w;
  }

  /** Sorts {@code keys} as unsigned numbers, least significant byte first, moving {@code values} alike. */
  private static void radixSort(long[] sortKeys, int[] sortValues) {
    long[] keys = sortKeys;
    int[] values = sortValues;
    int n = keys.length;
    int[][] counts = new int[8][256];
    for (long k : keys) {
      for (int d = 0; d < 8; d++) {
        counts[d][(int) (k >>> (8 * d)) & 0xff]++;
      }
    }
    long[] keysTo = new long[n];
    int[] valuesTo = new int[n];
    for (int d = 0; d < 8; d++) {
      int[] count = counts[d];
      if (n == 0 || count[(int) (keys[0] >>> (8 * d)) & 0xff] == n) {
        continue; // every key has the same byte here
      }
      int[] start = new int[256];
      for (int b = 1; b < 256; b++) {
        start[b] = start[b - 1] + count[b - 1];
      }
      for (int i = 0; i < n; i++) {
        int at = start[(int) (keys[i] >>> (8 * d)) & 0xff]++;
        keysTo[at] = keys[i];
        valuesTo[at] = values[i];
      }
      long[] k = keys;
      keys = keysTo;
      keysTo = k;
      int[] v = values;
      values = valuesTo;
      valuesTo = v;
    }
    if (keys != sortKeys) {
      System.arraycopy(keys, 0, sortKeys, 0, n);
      System.arraycopy(values, 0, sortValues, 0, n);
    }
  }
}
