package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rows on disk, byte for byte: stores already written and snapshots between members rely on them. */
class StoreLayoutTest {
  @TempDir Path tmp;

  private static byte[] bytes(Object... parts) {
    ByteBuffer b = ByteBuffer.allocate(64);
    for (Object p : parts) {
      if (p instanceof Character c) {
        b.put((byte) c.charValue());
      } else if (p instanceof Long l) {
        b.putLong(l);
      } else {
        b.put(((String) p).getBytes(StandardCharsets.US_ASCII));
      }
    }
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }

  @Test
  void rowKeys() {
    assertArrayEquals(bytes('r', 5L, '_', 2L), StoreLayout.revKey(new Revision(5, 2), false));
    assertArrayEquals(bytes('r', 5L, '_', 2L, 't'), StoreLayout.revKey(new Revision(5, 2), true));
    assertArrayEquals(bytes('l', 0x0102L), StoreLayout.leaseKey(0x0102));
    assertEquals(0x0102L, StoreLayout.leaseIdOf(StoreLayout.leaseKey(0x0102)));
    assertArrayEquals(bytes('a', "NOSPACE"), StoreLayout.alarmKey("NOSPACE".getBytes(StandardCharsets.US_ASCII)));
    assertArrayEquals(bytes('m', "applied"), StoreLayout.META_APPLIED);
    assertArrayEquals(bytes('m', "applied-term"), StoreLayout.META_APPLIED_TERM);
    assertArrayEquals(bytes('m', "revision"), StoreLayout.META_REVISION);
    assertArrayEquals(bytes('m', "installed"), StoreLayout.META_INSTALLED);
    assertArrayEquals(bytes('m', "compact-finished"), StoreLayout.META_COMPACT_FINISHED);
    assertArrayEquals(bytes('m', "compact-scheduled"), StoreLayout.META_COMPACT_SCHEDULED);
    assertArrayEquals(bytes(7L), StoreLayout.longBytes(7));
    assertEquals(0, StoreLayout.longOf(null), "a missing meta row reads as 0");
  }

  @Test
  void oneBatchWritesTheseRows() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "layout");
    try (MvccStore s = MvccStore.open(dir)) {
      KvStore.WriteTxn t = s.beginTxn(3);
      t.put(ByteString.copyFromUtf8("k"), ByteString.copyFromUtf8("v"), 9);
      t.deleteRange(ByteString.copyFromUtf8("k"), ByteString.EMPTY);
      t.end();
      s.putLease(9, 60);
      s.putAlarm(new byte[] {1});
      s.setApplied(3, 2);
      s.commitBatch();
    }
    Map<String, String> rows = new TreeMap<>();
    DB db = JniDBFactory.factory.open(dir.toFile(), new Options());
    try (DBIterator it = db.iterator()) {
      for (it.seekToFirst(); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next();
        rows.put(hex(e.getKey()), hex(e.getValue()));
      }
    } finally {
      db.close();
    }
    KeyValue put = KeyValue.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v"))
        .setLease(9).setCreateRevision(2).setModRevision(2).setVersion(1).build();
    KeyValue tomb = KeyValue.newBuilder().setKey(ByteString.copyFromUtf8("k")).setModRevision(2).build();
    Map<String, String> expected = new TreeMap<>(Map.of(
        hex(bytes('a')) + "01", "",
        hex(bytes('l', 9L)), hex(bytes(60L)),
        hex(bytes('m', "applied")), hex(bytes(3L)),
        hex(bytes('m', "applied-term")), hex(bytes(2L)),
        hex(bytes('m', "revision")), hex(bytes(2L)),
        hex(bytes('r', 2L, '_', 0L)), hex(put.toByteArray()),
        hex(bytes('r', 2L, '_', 1L, 't')), hex(tomb.toByteArray())));
    assertEquals(expected, rows);
  }
}
