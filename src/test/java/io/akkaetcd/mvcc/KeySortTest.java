package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

class KeySortTest {
  private static void assertSortsAsTheComparator(List<byte[]> keys) {
    KeyIndex[] histories = keys.stream().map(KeyIndex::new).toArray(KeyIndex[]::new);
    KeyIndex[] expected = histories.clone();
    Arrays.sort(expected, (a, b) -> KeyOrder.BYTES.compare(a.key(), b.key()));
    KeyIndex[] before = histories.clone();
    KeyIndex[] sorted = KeySort.sort(histories);
    assertEquals(Arrays.asList(expected), Arrays.asList(sorted));
    assertEquals(Arrays.asList(before), Arrays.asList(histories), "the input is left as it was");
  }

  /** {@code count} keys made by {@code key}, each once (a table holds one history a key). */
  private static List<byte[]> distinctKeys(int count, IntFunction<byte[]> key) {
    Map<String, byte[]> byContent = new HashMap<>();
    for (int i = 0; i < count; i++) {
      byte[] k = key.apply(i);
      byContent.put(Arrays.toString(k), k);
    }
    return List.copyOf(byContent.values());
  }

  @Test
  void edgeCasesOfTheEightByteWindow() {
    assertSortsAsTheComparator(List.of());
    assertSortsAsTheComparator(List.of(new byte[] {1}));
    // empty and short keys, zero bytes (ties of the zero padding), bytes above 0x7f (unsigned)
    assertSortsAsTheComparator(List.of(new byte[0], new byte[] {0}, new byte[] {0, 0}, new byte[] {(byte) 0xff},
        new byte[] {(byte) 0x80}, new byte[] {0x7f}, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 0},
        new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, new byte[] {1, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff},
        new byte[] {1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1}));
    // every key shares a prefix, one key is the prefix itself
    assertSortsAsTheComparator(List.of("/registry/".getBytes(StandardCharsets.UTF_8),
        "/registry/pods/b".getBytes(StandardCharsets.UTF_8), "/registry/pods/a".getBytes(StandardCharsets.UTF_8),
        "/registry/pods/a/very/long/tail".getBytes(StandardCharsets.UTF_8),
        "/registry/pods/a/very/long/tain".getBytes(StandardCharsets.UTF_8),
        "/registry/nodes/x".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void randomKeysOfEveryShape() {
    Random random = new Random(11);
    for (int round = 0; round < 40; round++) {
      int prefix = random.nextInt(12);
      int maxTail = 1 + random.nextInt(20);
      int alphabet = 1 + random.nextInt(256);
      byte[] shared = new byte[prefix];
      random.nextBytes(shared);
      assertSortsAsTheComparator(distinctKeys(1 + random.nextInt(3_000), i -> {
        byte[] k = Arrays.copyOf(shared, prefix + random.nextInt(maxTail + 1));
        for (int j = prefix; j < k.length; j++) {
          k[j] = (byte) random.nextInt(alphabet);
        }
        return k;
      }));
    }
  }
}
