package io.akkaetcd.mvcc;

import static io.akkaetcd.mvcc.MvccStoreTest.ALL;
import static io.akkaetcd.mvcc.MvccStoreTest.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store sent whole to another member: exported in chunks, received beside the other store,
 * installed in its place; and the directory swap survives a crash at any step.
 */
class MvccSnapshotTest {
  @TempDir Path tmp;

  private static void write(MvccStore s, long index, long term, String key, String value, long lease) {
    KvStore.WriteTxn t = s.beginTxn(index);
    t.put(b(key), b(value), lease);
    t.end();
    s.setApplied(index, term);
    s.commitBatch();
  }

  /** A store with history, a delete, a lease and a compaction: 300 entries at term 2. */
  private static MvccStore source(Path dir) throws Exception {
    MvccStore s = MvccStore.open(dir);
    s.putLease(7, 60);
    s.setApplied(1, 2);
    s.commitBatch();
    for (int i = 2; i <= 299; i++) {
      write(s, i, 2, "k" + (i % 50), "v" + i, i % 50 == 0 ? 7 : 0);
    }
    KvStore.WriteTxn t = s.beginTxn(300);
    t.deleteRange(b("k1"), ByteString.EMPTY);
    t.end();
    s.setApplied(300, 2);
    s.commitBatch();
    s.compact(100).toCompletableFuture().get();
    return s;
  }

  /** Copies an export into a store being received for {@code target}, in small chunks. */
  private static Path transfer(StoreExport export, Path target) {
    try (IncomingStore incoming = IncomingStore.create(target)) {
      int chunks = 0;
      while (!export.exhausted()) {
        List<ByteString> keys = new ArrayList<>();
        List<ByteString> values = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> row : export.next(2048)) {
          keys.add(ByteString.copyFrom(row.getKey()));
          values.add(ByteString.copyFrom(row.getValue()));
        }
        incoming.write(keys, values);
        chunks++;
      }
      assertTrue(chunks > 3, "sent in several chunks: " + chunks);
      return incoming.finish();
    }
  }

  @Test
  void anInstalledExportIsTheSourceStore() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "snap");
    try (MvccStore source = source(dir.resolve("a")); MvccStore target = MvccStore.open(dir.resolve("b"))) {
      write(target, 1, 1, "stale", "x", 0);
      Path received;
      try (StoreExport export = source.export()) {
        assertEquals(300, export.appliedIndex());
        assertEquals(2, export.appliedTerm());
        write(source, 301, 3, "after", "the export", 0); // not in it: the export is a snapshot
        received = transfer(export, dir.resolve("b"));
      }
      target.install(received);

      assertEquals(300, target.appliedIndex());
      assertEquals(2, target.appliedTerm());
      assertEquals(source.compactRevision(), target.compactRevision());
      assertEquals(source.hashKV(source.currentRevision() - 1), target.hashKV(target.currentRevision()));
      assertEquals(0, target.range(b("stale"), ByteString.EMPTY, 0, 0, false).count(), "the old store is gone");
      assertEquals(0, target.range(b("after"), ByteString.EMPTY, 0, 0, false).count());
      assertEquals(0, target.range(b("k1"), ByteString.EMPTY, 0, 0, false).count(), "the delete came along");
      assertEquals(49, target.range(ALL, ALL, 0, 0, false).count());
      assertEquals(Map.of(7L, 60L), target.leases());
      assertEquals(Map.of(b("k0"), 7L), target.leasedKeys(), "the lessor rebuilds from the installed store");
      EtcdException compacted = assertThrows(EtcdException.class,
          () -> target.range(b("k2"), ByteString.EMPTY, 50, 0, false));
      assertEquals(EtcdError.COMPACTED, compacted.error());
      assertFalse(Files.exists(dir.resolve("b.incoming")) || Files.exists(dir.resolve("b.old")), "no leftovers");

      // The installed store takes writes, and reopens as it is.
      write(target, 301, 3, "next", "y", 0);
      long revision = target.currentRevision();
      target.close();
      try (MvccStore reopened = MvccStore.open(dir.resolve("b"))) {
        assertEquals(301, reopened.appliedIndex());
        assertEquals(3, reopened.appliedTerm());
        assertEquals(revision, reopened.currentRevision());
      }
    }
  }

  @Test
  void closingTheSourceEndsItsExports() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "snap");
    MvccStore source = source(dir.resolve("a"));
    StoreExport export = source.export();
    export.next(100);
    source.close();
    assertThrows(EtcdException.class, () -> export.next(100), "reads after close fail instead of crashing LevelDB");
    export.close();
  }

  @Test
  void anInterruptedInstallLeavesOneWholeStore() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "snap");
    Path store = dir.resolve("mvcc");
    try (MvccStore s = MvccStore.open(store)) {
      write(s, 1, 1, "old", "x", 0);
    }
    // Crashed after the old store was moved aside and before the new one was moved in.
    Files.move(store, dir.resolve("mvcc.old"));
    Files.createDirectories(dir.resolve("mvcc.incoming"));
    try (MvccStore s = MvccStore.open(store)) {
      assertEquals(1, s.range(b("old"), ByteString.EMPTY, 0, 0, false).count(), "the old store is back");
    }
    assertFalse(Files.exists(dir.resolve("mvcc.incoming")), "a received store that was not installed is dropped");

    // Crashed after the new store was moved in and before the old one was deleted.
    Path newer = dir.resolve("newer");
    try (MvccStore s = MvccStore.open(newer)) {
      write(s, 5, 2, "new", "y", 0);
    }
    Files.move(store, dir.resolve("mvcc.old"));
    Files.move(newer, store);
    try (MvccStore s = MvccStore.open(store)) {
      assertEquals(5, s.appliedIndex());
      assertEquals(1, s.range(b("new"), ByteString.EMPTY, 0, 0, false).count());
    }
    assertFalse(Files.exists(dir.resolve("mvcc.old")));
  }
}
