package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cursor reads exactly the rows leveldbjni's own iterator reads, through the natives. */
class RowCursorTest {
  @TempDir Path tmp;

  @Test
  void readsTheSameRowsAsTheIteratorFromAnySeek() throws Exception {
    assertTrue(RowCursor.direct(), "leveldbjni 1.8's natives not found: cursors fall back to DBIterator");
    try (DB db = JniDBFactory.factory.open(tmp.toFile(), new Options().createIfMissing(true))) {
      for (int i = 0; i < 2_000; i++) {
        byte[] value = new byte[i % 7 == 0 ? 0 : i % 50 == 0 ? 100_000 : i];
        value = value.length == 0 ? value : fill(value, i);
        db.put(key(i), value);
      }
      db.put(new byte[] {(byte) 0xff, 0}, new byte[] {0, (byte) 0xff});
      try (Snapshot snapshot = db.getSnapshot()) {
        db.put(key(5), "after the snapshot".getBytes(StandardCharsets.UTF_8));
        ReadOptions options = new ReadOptions().snapshot(snapshot).fillCache(false);
        for (byte[] from : List.of(new byte[] {0}, key(1234), new byte[] {(byte) 0xff, 0}, new byte[] {(byte) 0xff, 1})) {
          List<Map.Entry<byte[], byte[]>> expected = new ArrayList<>();
          try (DBIterator it = db.iterator(options)) {
            it.seek(from);
            it.forEachRemaining(expected::add);
          }
          int n = 0;
          // A small buffer to start with: appending grows it as rows come, 100,000-byte values too.
          ChunkBytes chunk = new ChunkBytes(16);
          try (RowCursor rows = new RowCursor(db, options)) {
            for (rows.seek(from); rows.valid(); rows.next()) {
              byte[] key = expected.get(n).getKey();
              byte[] value = expected.get(n).getValue();
              assertArrayEquals(key, rows.key());
              assertEquals(value.length, rows.valueSize());
              assertArrayEquals(value, rows.value());
              int at = chunk.length();
              assertEquals(key.length, rows.appendKey(chunk));
              assertEquals(value.length, rows.appendValue(chunk));
              assertArrayEquals(key, Arrays.copyOfRange(chunk.array(), at, at + key.length));
              assertArrayEquals(value, Arrays.copyOfRange(chunk.array(), at + key.length, chunk.length()));
              n++;
            }
          }
          assertEquals(expected.size(), n);
        }
      }
    }
  }

  private static byte[] key(int i) {
    return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] fill(byte[] value, int seed) {
    for (int j = 0; j < value.length; j++) {
      value[j] = (byte) (seed * 31 + j);
    }
    return value;
  }
}
