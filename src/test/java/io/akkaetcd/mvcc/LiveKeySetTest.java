package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The counted B+tree against a TreeSet: random inserts and deletes over a key space large enough
 * for several levels, so that leaves and inner nodes split, underflow, merge and re-split, and the
 * root grows and shrinks. On failure the message names the seed; {@code -Dlivekeys.seed=N} replays.
 */
class LiveKeySetTest {
  private static byte[] key(int n) {
    return ByteBuffer.allocate(4).putInt(n).array();
  }

  @Test
  void countsRangesAsASortedSetDoesThroughGrowthAndShrinkage() {
    long seed = Long.getLong("livekeys.seed", System.nanoTime());
    try {
      run(seed);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + ": " + e, e);
    }
  }

  private static void run(long seed) {
    Random rnd = new Random(seed);
    TreeSet<Integer> model = new TreeSet<>();
    LiveKeySet set = LiveKeySet.EMPTY;
    List<LiveKeySet> older = new ArrayList<>();
    List<Integer> olderSizes = new ArrayList<>();
    for (int round = 0; round < 40; round++) {
      // Alternate phases: mostly inserts (grow to ~20,000 keys), then mostly deletes (shrink).
      boolean growing = round % 4 != 3;
      for (int i = 0; i < 2000; i++) {
        int k = rnd.nextInt(30_000);
        boolean insert = growing ? rnd.nextInt(4) > 0 : rnd.nextInt(4) == 0;
        if (insert && model.add(k)) {
          set = set.insert(key(k));
        } else if (!insert && model.remove(k)) {
          set = set.delete(key(k));
        }
      }
      assertEquals(model.size(), set.size());
      for (int q = 0; q < 50; q++) {
        int a = rnd.nextInt(31_000);
        int b = rnd.nextInt(31_000);
        assertEquals(model.headSet(a).size(), set.rank(key(a)), "rank " + a);
        assertEquals(a < b ? model.subSet(a, b).size() : 0, set.countBetween(key(a), key(b)), a + ".." + b);
        assertEquals(model.contains(a), set.contains(key(a)));
      }
      older.add(set);
      olderSizes.add(model.size());
    }
    // Persistence: every earlier set still counts what it held.
    for (int i = 0; i < older.size(); i++) {
      assertEquals((long) olderSizes.get(i), older.get(i).rank(key(Integer.MAX_VALUE)));
    }
    // Delete everything: back to an empty set.
    for (int k : new ArrayList<>(model)) {
      set = set.delete(key(k));
    }
    assertEquals(0, set.size());
  }

  @Test
  void bulkBuildMatchesInsertsAndTakesFurtherWrites() {
    for (int size : new int[] {0, 1, 47, 48, 49, 3000, 100_000}) {
      List<byte[]> sorted = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        sorted.add(key(2 * i));
      }
      LiveKeySet set = LiveKeySet.ofSorted(sorted);
      assertEquals(size, set.size());
      assertEquals((size + 1) / 2, set.rank(key(size)), "size " + size);
      set = set.insert(key(1));
      if (size > 0) {
        set = set.delete(key(0));
      }
      assertEquals(size == 0 ? 1 : size, set.size());
      assertEquals(1, set.countBetween(key(0), key(2)));
    }
  }

  @Test
  void prefixesSortBeforeTheirExtensions() {
    LiveKeySet set = LiveKeySet.EMPTY.insert(new byte[] {1}).insert(new byte[] {1, 0}).insert(new byte[] {(byte) 0xff});
    assertEquals(2, set.countBetween(new byte[] {1}, new byte[] {2}), "unsigned order: 0xff sorts last");
    assertEquals(1, set.rank(new byte[] {1, 0}));
  }

  @Test
  void refusesToDeleteAKeyItDoesNotHold() {
    assertThrows(IllegalStateException.class, () -> LiveKeySet.EMPTY.insert(key(1)).delete(key(2)));
  }
}
