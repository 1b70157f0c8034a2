package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import io.akkaetcd.bbolt.BboltReader;
import io.akkaetcd.bbolt.EtcdBuckets;
import io.akkaetcd.bbolt.SnapshotFraming;
import io.akkaetcd.errors.EtcdException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store backed up into etcd's layout and imported again is the same store (revisions, history
 * from the compaction on, leases, alarms), as it was when the backup was taken.
 */
class StoreBackupTest {
  private static final ByteString ALL = ByteString.copyFrom(new byte[] {0});
  /** Enough rows for several chunks of the backup's reads and a multi-level bbolt tree. */
  private static final int MANY = 30_000;

  @TempDir Path tmp;

  private static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  /**
   * Revisions 2..MANY+1 write many/i (a 100-byte value; one of them, larger than a chunk of the
   * backup's reads, 1.5 MiB), then: a@+1, a@+2 leased, del a, compact.
   */
  private static long fill(MvccStore s) throws Exception {
    long index = 0;
    for (int i = 0; i < MANY; i++) {
      KvStore.WriteTxn t = s.beginTxn(++index);
      String value = i == MANY * 2 / 3 ? "w".repeat(3 << 19) : "v".repeat(100);
      t.put(b(String.format("many/%05d", i)), b(value + i), 0);
      t.end();
      s.setApplied(index, 1);
    }
    s.commitBatch();
    KvStore.WriteTxn t = s.beginTxn(++index);
    t.put(ByteString.copyFrom(new byte[] {(byte) 0xff, 0}), b("a1"), 0);
    t.end();
    s.putLease(77, 600);
    s.putAlarm(new byte[] {8, 1, 16, 1});
    t = s.beginTxn(++index);
    t.put(ByteString.copyFrom(new byte[] {(byte) 0xff, 0}), b("a2"), 77);
    t.end();
    t = s.beginTxn(++index);
    t.deleteRange(b("many/00000"), ByteString.EMPTY);
    t.end();
    s.setApplied(index, 1);
    s.commitBatch();
    s.compact(MANY / 2).toCompletableFuture().get(30, TimeUnit.SECONDS);
    return index;
  }

  @Test
  void aBackupImportedIsTheStoreAsItWasWhenTaken() throws Exception {
    Path file = tmp.resolve("backup.db");
    Path restoredDir = tmp.resolve("restored").resolve("mvcc");
    try (MvccStore s = MvccStore.open(tmp.resolve("mvcc"))) {
      long index = fill(s);
      long revision = s.currentRevision();
      try (StoreBackup backup = s.backup()) {
        KvStore.WriteTxn t = s.beginTxn(index + 1); // after the backup: not in it
        t.put(b("later"), b("x"), 0);
        t.end();
        s.deleteLease(77);
        s.setApplied(index + 1, 1);
        s.commitBatch();
        try (OutputStream out = Files.newOutputStream(file)) {
          SnapshotFraming.writeWithHash(new EtcdBuckets(backup), out);
        }
      }
      try (BboltReader reader = BboltReader.open(file); StoreImport in = StoreImport.create(restoredDir)) {
        EtcdBuckets.read(reader, in);
        assertEquals(revision, in.revision());
      }
      try (MvccStore r = MvccStore.open(restoredDir)) {
        assertEquals(revision, r.currentRevision());
        assertEquals(MANY / 2, r.compactRevision());
        assertEquals(StoreImport.RESTORED_INDEX, r.appliedIndex(), "a new Raft log starts after the import's point");
        assertEquals(StoreImport.RESTORED_TERM, r.appliedTerm(), "the import's point has a term");
        assertEquals(java.util.Map.of(77L, 600L), r.leases());
        assertEquals(1, r.alarms().size());
        assertEquals(List.of((byte) 8, (byte) 1, (byte) 16, (byte) 1), bytes(r.alarms().get(0)));
        for (long rev : new long[] {MANY / 2, MANY / 2 + 1, revision - 1, revision}) {
          assertEquals(s.range(ALL, ALL, rev, 0, false).kvs(), r.range(ALL, ALL, rev, 0, false).kvs(), "at " + rev);
        }
        assertEquals(s.events(MANY / 2 + 1, revision), r.events(MANY / 2 + 1, revision));
        assertEquals(s.hashKV(revision).hash(), r.hashKV(revision).hash());
      }
    }
  }

  @Test
  void theLayoutPassSizesAreTheRevisionsOwn() throws Exception {
    try (MvccStore s = MvccStore.open(tmp.resolve("mvcc"))) {
      fill(s);
      try (StoreBackup backup = s.backup()) {
        List<String> rows = new java.util.ArrayList<>();
        backup.revisions(r -> rows.add(r.tombstone() + " " + r.value().size()));
        List<String> sizes = new java.util.ArrayList<>();
        backup.revisionSizes((tombstone, size) -> sizes.add(tombstone + " " + size));
        assertEquals(rows, sizes);
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("true ")), "a tombstone among the rows");
      }
    }
  }

  @Test
  void aBackupFailsOnceItsStoreIsClosed() throws Exception {
    MvccStore s = MvccStore.open(tmp.resolve("mvcc"));
    fill(s);
    StoreBackup backup = s.backup();
    int[] seen = {0};
    EtcdException stopped = assertThrows(EtcdException.class, () -> backup.revisions(r -> {
      if (++seen[0] == 10) {
        s.close(); // mid-read: the backup is released first, and its next chunk fails
      }
    }));
    assertEquals(io.akkaetcd.errors.EtcdError.STOPPED, stopped.error());
    // The chunk read before the close is handed out whole; nothing after it.
    org.junit.jupiter.api.Assertions.assertTrue(seen[0] < MANY, seen[0] + " rows");
    assertThrows(EtcdException.class, s::backup);
    backup.close();
  }

  private static List<Byte> bytes(byte[] b) {
    Byte[] boxed = new Byte[b.length];
    Arrays.setAll(boxed, i -> b[i]);
    return List.of(boxed);
  }
}
