package io.akkaetcd.bbolt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BboltRoundTripTest {
  @TempDir Path dir;

  /** Buckets as an ordered map of ordered pairs (the test builds them in bytewise order). */
  private static BboltSource source(Map<String, List<ByteString[]>> buckets) {
    return sink -> {
      for (Map.Entry<String, List<ByteString[]>> b : buckets.entrySet()) {
        sink.beginBucket(ByteString.copyFromUtf8(b.getKey()));
        for (ByteString[] kv : b.getValue()) {
          sink.put(kv[0], kv[1]);
        }
        sink.endBucket();
      }
    };
  }

  private static ByteString key(int i) {
    return ByteString.copyFrom(ByteBuffer.allocate(8).putLong(i).array()).concat(ByteString.copyFromUtf8("/k"));
  }

  private Path write(BboltSource source) throws IOException {
    Path file = dir.resolve("db");
    long size;
    try (OutputStream out = Files.newOutputStream(file)) {
      size = BboltWriter.write(source, out);
    }
    assertEquals(size, Files.size(file));
    return file;
  }

  private static Map<String, List<ByteString[]>> readAll(BboltReader reader) throws IOException {
    Map<String, List<ByteString[]>> all = new LinkedHashMap<>();
    for (ByteString name : reader.bucketNames()) {
      List<ByteString[]> pairs = new ArrayList<>();
      assertTrue(reader.forEach(name, (k, v) -> pairs.add(new ByteString[] {k, v})));
      all.put(name.toStringUtf8(), pairs);
    }
    return all;
  }

  private static void assertSame(Map<String, List<ByteString[]>> want, Map<String, List<ByteString[]>> got) {
    assertEquals(List.copyOf(want.keySet()), List.copyOf(got.keySet()));
    for (String b : want.keySet()) {
      List<ByteString[]> w = want.get(b);
      List<ByteString[]> g = got.get(b);
      assertEquals(w.size(), g.size(), "pairs in " + b);
      for (int i = 0; i < w.size(); i++) {
        assertArrayEquals(w.get(i), g.get(i), b + " pair " + i);
      }
    }
  }

  @Test
  void roundTripsEmptyBucketsOverflowValuesAndDeepTrees() throws IOException {
    Map<String, List<ByteString[]>> want = new LinkedHashMap<>();
    want.put("a-empty", List.of());
    List<ByteString[]> big = new ArrayList<>();
    Random random = new Random(30);
    for (int i = 0; i < 5; i++) {
      byte[] value = new byte[i * 9_000 + 1];
      random.nextBytes(value);
      big.add(new ByteString[] {key(i), ByteString.copyFrom(value)});
    }
    want.put("big", big);
    List<ByteString[]> many = new ArrayList<>();
    for (int i = 0; i < 60_000; i++) {
      many.add(new ByteString[] {key(i), ByteString.copyFromUtf8("v" + i)});
    }
    want.put("many", many);
    want.put("z-empty", List.of());

    Path file = write(source(want));
    try (BboltReader reader = BboltReader.open(file)) {
      assertEquals(BboltWriter.TXID, reader.meta().txid());
      assertEquals(Files.size(file), reader.meta().highWater() * BboltFormat.PAGE_SIZE);
      assertSame(want, readAll(reader));
      assertFalse(reader.forEach(ByteString.copyFromUtf8("absent"), (k, v) -> {}));
    }
    assertEquals(3, depth(file, "many"), "60k keys need a root branch over branches over leaves");
    assertEveryPageReachableOnce(file);
  }

  @Test
  void anEmptyDatabaseIsMetasFreelistAndAnEmptyRootLeaf() throws IOException {
    Path file = write(sink -> {});
    assertEquals(4L * BboltFormat.PAGE_SIZE, Files.size(file));
    try (BboltReader reader = BboltReader.open(file)) {
      assertEquals(List.of(), reader.bucketNames());
      assertEquals(3, reader.meta().root());
    }
  }

  @Test
  void theValidMetaWithTheLargerTxidWins() throws IOException {
    Path file = write(source(Map.of("b", List.<ByteString[]>of(new ByteString[] {key(1), key(2)}))));
    byte[] image = Files.readAllBytes(file);
    image[BboltFormat.PAGE_HEADER + 20] ^= 1; // corrupt meta0's root: its checksum no longer holds
    Files.write(file, image);
    try (BboltReader reader = BboltReader.open(file)) {
      assertEquals(BboltWriter.TXID - 1, reader.meta().txid());
      assertEquals(1, readAll(reader).get("b").size());
    }
    image[BboltFormat.PAGE_SIZE + BboltFormat.PAGE_HEADER] ^= 1; // and meta1's magic
    Files.write(file, image);
    assertThrows(IOException.class, () -> BboltReader.open(file));
  }

  @Test
  void rejectsKeysOrBucketsOutOfBytewiseOrder() {
    ByteString high = ByteString.copyFrom(new byte[] {(byte) 0x80});
    ByteString low = ByteString.copyFrom(new byte[] {0x7f});
    assertThrows(IllegalArgumentException.class, () -> write(sink -> {
      sink.beginBucket(low);
      sink.put(high, low);
      sink.put(low, low);
      sink.endBucket();
    }));
    assertThrows(IllegalArgumentException.class, () -> write(sink -> {
      sink.beginBucket(high);
      sink.endBucket();
      sink.beginBucket(low);
      sink.endBucket();
    }));
  }

  @Test
  void keyOrderTakesPrefixesAndLongKeysRefusesRepeatsAndRestartsPerBucket() throws IOException {
    ByteString a = ByteString.copyFromUtf8("a");
    ByteString ab = ByteString.copyFromUtf8("ab");
    ByteString longA = ByteString.copyFromUtf8("a".repeat(200) + "b"); // past the kept key's first buffer
    ByteString longB = ByteString.copyFromUtf8("a".repeat(300) + "c");
    write(sink -> {
      sink.beginBucket(a);
      sink.put(a, a);
      sink.put(longB, a); // "aaa…c" sorts before "aa…b": the first difference decides
      sink.put(longA, a);
      sink.put(ab, a);
      sink.endBucket();
      sink.beginBucket(ab); // a new bucket's keys start again
      sink.put(a, a);
      sink.endBucket();
    });
    assertThrows(IllegalArgumentException.class, () -> write(sink -> {
      sink.beginBucket(a);
      sink.put(longB, a);
      sink.put(longB, a);
      sink.endBucket();
    }));
    assertThrows(IllegalArgumentException.class, () -> write(sink -> {
      sink.beginBucket(a);
      sink.put(longA, a);
      sink.put(longB, a);
      sink.endBucket();
    }));
  }

  @Test
  void aSourceThatChangesBetweenPassesIsRefused() {
    int[] calls = {0};
    assertThrows(IllegalStateException.class, () -> write(sink -> {
      sink.beginBucket(ByteString.copyFromUtf8("b"));
      for (int i = 0; i < 100 * ++calls[0]; i++) {
        sink.put(key(i), key(i));
      }
      sink.endBucket();
    }));
  }

  @Test
  void framingAppendsTheImagesSha256() throws Exception {
    Path file = dir.resolve("snap");
    BboltSource source = source(Map.of("b", List.<ByteString[]>of(new ByteString[] {key(1), key(2)})));
    try (OutputStream out = Files.newOutputStream(file)) {
      assertEquals(Files.size(file) + 5 * BboltFormat.PAGE_SIZE + 32, SnapshotFraming.writeWithHash(source, out));
    }
    byte[] all = Files.readAllBytes(file);
    assertTrue(SnapshotFraming.hasHash(all.length));
    byte[] image = Arrays.copyOf(all, all.length - 32);
    assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(image), Arrays.copyOfRange(all, image.length, all.length));
  }

  // --- a small tx.Check(): walks the raw pages, every id below the high water once

  private static ByteBuffer page(byte[] image, long id) {
    return ByteBuffer.wrap(image, (int) id * BboltFormat.PAGE_SIZE, BboltFormat.PAGE_SIZE).slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  private static void assertEveryPageReachableOnce(Path file) throws IOException {
    byte[] image = Files.readAllBytes(file);
    ByteBuffer meta = page(image, 0);
    long highWater = meta.getLong(BboltFormat.PAGE_HEADER + 40);
    BitSet seen = new BitSet();
    seen.set(0, 3); // metas and the (empty) freelist
    mark(image, meta.getLong(BboltFormat.PAGE_HEADER + 16), seen, true);
    assertEquals(highWater, seen.cardinality(), "every page reachable");
    assertEquals(highWater, seen.length());
  }

  private static void mark(byte[] image, long id, BitSet seen, boolean bucketsBelow) {
    ByteBuffer p = page(image, id);
    assertEquals(id, p.getLong(0), "page id in header");
    int overflow = p.getInt(12);
    for (long i = id; i <= id + overflow; i++) {
      assertFalse(seen.get((int) i), "page " + i + " referenced twice");
      seen.set((int) i);
    }
    int flags = p.getShort(8);
    int count = p.getShort(10) & 0xffff;
    for (int i = 0; i < count; i++) {
      int at = BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT;
      if (flags == BboltFormat.BRANCH) {
        mark(image, p.getLong(at + 8), seen, bucketsBelow);
      } else if (bucketsBelow) {
        ByteBuffer whole = ByteBuffer.wrap(image, (int) id * BboltFormat.PAGE_SIZE, (overflow + 1) * BboltFormat.PAGE_SIZE)
            .slice().order(ByteOrder.LITTLE_ENDIAN);
        int valueAt = at + whole.getInt(at + 4) + whole.getInt(at + 8);
        mark(image, whole.getLong(valueAt), seen, false);
      }
    }
  }

  private static int depth(Path file, String bucket) throws IOException {
    byte[] image = Files.readAllBytes(file);
    long[] root = {0};
    try (BboltReader reader = BboltReader.open(file)) {
      reader.forEach(ByteString.copyFromUtf8(bucket), (k, v) -> {});
      // find the bucket's root from the root leaf (one page: few buckets)
      ByteBuffer top = page(image, reader.meta().root());
      for (int i = 0; i < (top.getShort(10) & 0xffff); i++) {
        int at = BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT;
        int pos = at + top.getInt(at + 4);
        byte[] name = new byte[top.getInt(at + 8)];
        top.get(pos, name);
        if (new String(name).equals(bucket)) {
          root[0] = top.getLong(pos + name.length);
        }
      }
    }
    int depth = 1;
    for (long id = root[0]; page(image, id).getShort(8) == BboltFormat.BRANCH; depth++) {
      id = page(image, id).getLong(BboltFormat.PAGE_HEADER + 8);
    }
    return depth;
  }
}
