package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyTableTest {
  private static byte[] key(int n) {
    return ByteBuffer.allocate(4).putInt(n).array();
  }

  @Test
  void findsAddsAndReplacesByKeyContentNotArrayIdentity() {
    KeyTable t = new KeyTable(4);
    KeyIndex a = t.historyOf("a".getBytes(StandardCharsets.UTF_8));
    assertTrue(a.isEmpty(), "a new key gets an empty history");
    assertSame(a, t.historyOf("a".getBytes(StandardCharsets.UTF_8)), "and keeps it");
    assertSame(a, t.get("a".getBytes(StandardCharsets.UTF_8)));
    assertNull(t.get("b".getBytes(StandardCharsets.UTF_8)));

    KeyIndex replaced = new KeyIndex("a".getBytes(StandardCharsets.UTF_8));
    t.put(replaced);
    assertSame(replaced, t.get("a".getBytes(StandardCharsets.UTF_8)));
    assertEquals(1, t.size());
  }

  /**
   * Random adds, replacements and removals over a small key space, so that probe runs form, wrap
   * around the end of the array and lose entries from their middle: the table must always agree
   * with a HashMap and hold no more than it should.
   */
  @Test
  void agreesWithAHashMapUnderRandomAddsReplacementsAndRemovals() {
    Random random = new Random(7);
    for (int round = 0; round < 20; round++) {
      KeyTable t = new KeyTable(2);
      Map<Integer, KeyIndex> model = new HashMap<>();
      int space = 8 + random.nextInt(300);
      for (int op = 0; op < 5_000; op++) {
        int k = random.nextInt(space);
        switch (random.nextInt(4)) {
          case 0 -> model.put(k, t.historyOf(key(k)));
          case 1 -> {
            KeyIndex h = new KeyIndex(key(k));
            t.put(h);
            model.put(k, h);
          }
          default -> {
            t.remove(key(k));
            model.remove(k);
          }
        }
        if (op % 97 == 0 || op == 4_999) {
          for (int i = 0; i < space; i++) {
            assertSame(model.get(i), t.get(key(i)), "round " + round + ", op " + op + ", key " + i);
          }
          assertEquals(model.size(), t.size());
          Set<KeyIndex> seen = new HashSet<>();
          t.forEach(seen::add);
          assertEquals(new HashSet<>(model.values()), seen);
        }
      }
    }
  }

  @Test
  void growsAndKeepsEveryKey() {
    KeyTable t = new KeyTable(2);
    Map<Integer, KeyIndex> added = new HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      added.put(i, t.historyOf(key(i)));
    }
    assertEquals(100_000, t.size());
    added.forEach((k, h) -> assertSame(h, t.get(key(k))));
    t.remove(key(5));
    assertNull(t.get(key(5)));
    assertSame(added.get(6), t.get(key(6)));
    assertEquals(99_999, t.size());
  }
}
