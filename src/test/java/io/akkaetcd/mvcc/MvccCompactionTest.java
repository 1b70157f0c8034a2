package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction inside a batch, after a crash, and under concurrent readers; leases on disk. */
class MvccCompactionTest {
  @TempDir Path tmp;

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static void write(MvccStore s, long index, String key, String value) {
    KvStore.WriteTxn t = s.beginTxn(index);
    t.put(b(key), b(value), 0);
    t.end();
  }

  private static EtcdError errorOf(Runnable r) {
    return assertThrows(EtcdException.class, r::run).error();
  }

  @Test
  void aCompactionOfTheUncommittedBatchStartsWhenTheBatchIsOnDisk() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      write(s, 1, "k", "1"); // 2
      write(s, 2, "k", "2"); // 3
      write(s, 3, "k", "3"); // 4
      assertEquals(1, s.currentRevision());
      CompletionStage<Void> done = s.compact(3);
      assertEquals(0, s.compactRevision(), "not before the batch is committed");
      assertEquals(EtcdError.COMPACTED, errorOf(() -> s.compact(3)));
      assertEquals(EtcdError.FUTURE_REV, errorOf(() -> s.compact(5)));
      s.setApplied(4, 1);
      s.commitBatch();
      done.toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(3, s.compactRevision());
      assertEquals(4, s.currentRevision());
      assertEquals(2, s.revisionsOnDisk(), "revisions 3 and 4 are left");
      assertEquals("2", s.range(b("k"), ByteString.EMPTY, 3, 0, false).kvs().get(0).getValue().toStringUtf8());
      assertEquals(EtcdError.COMPACTED, errorOf(() -> s.range(b("k"), ByteString.EMPTY, 2, 0, false)));
    }
  }

  @Test
  void anUncommittedCompactionIsLostWithItsBatchAndNothingIsDeleted() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    try (MvccStore s = MvccStore.open(dir)) {
      write(s, 1, "k", "1");
      write(s, 2, "k", "2");
      s.commitBatch(); // revision 3
      write(s, 3, "k", "3"); // 4, uncommitted
      s.compact(4);
      // "crash": closed without commitBatch
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(3, s.currentRevision());
      assertEquals(0, s.compactRevision());
      assertEquals(2, s.appliedIndex());
      assertEquals(2, s.revisionsOnDisk());
      assertEquals("1", s.range(b("k"), ByteString.EMPTY, 2, 0, false).kvs().get(0).getValue().toStringUtf8());
    }
  }

  @Test
  void aCompactionInABatchIsDurableWithTheBatchSoItsEntryReplaysCleanly() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    try (MvccStore s = MvccStore.open(dir)) {
      write(s, 1, "k", "1");
      write(s, 2, "k", "2");
      s.commitBatch(); // revision 3, applied 2
      write(s, 3, "k", "3"); // 4, uncommitted
      s.compact(3); // a committed revision, but the batch is open
      s.setApplied(4, 1);
      assertEquals(0, s.compactRevision());
      // "crash" before the batch is written
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(0, s.compactRevision());
      assertEquals(2, s.appliedIndex());
      write(s, 3, "k", "3");
      CompletionStage<Void> done = s.compact(3); // the replayed entry succeeds again
      s.setApplied(4, 1);
      s.commitBatch();
      done.toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(3, s.compactRevision());
      assertEquals(2, s.revisionsOnDisk());
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(3, s.compactRevision());
      assertEquals(4, s.currentRevision());
      assertEquals(4, s.appliedIndex());
    }
  }

  @Test
  void anUnfinishedCompactionResumesOnOpen() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    try (MvccStore s = MvccStore.open(dir)) {
      for (int i = 1; i <= 10; i++) {
        write(s, i, "k" + (i % 2), "v" + i); // revisions 2..11
      }
      s.commitBatch();
      assertEquals(10, s.revisionsOnDisk());
    }
    // Simulate a crash right after the scheduled revision was persisted.
    try (DB db = JniDBFactory.factory.open(dir.toFile(), new Options())) {
      db.put(("m" + "compact-scheduled").getBytes(StandardCharsets.US_ASCII),
          ByteBuffer.allocate(8).putLong(9).array());
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(9, s.compactRevision());
      assertEquals(11, s.currentRevision());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (s.revisionsOnDisk() != 4 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertEquals(4, s.revisionsOnDisk(), "8, 9 (newest at 9 of each key), 10, 11");
      assertEquals("v7", s.range(b("k1"), ByteString.EMPTY, 9, 0, false).kvs().get(0).getValue().toStringUtf8());
      assertEquals("v8", s.range(b("k0"), ByteString.EMPTY, 9, 0, false).kvs().get(0).getValue().toStringUtf8());
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(9, s.compactRevision());
      assertEquals(4, s.revisionsOnDisk());
    }
  }

  @Test
  void readersAtOrAboveTheCompactRevisionStayCorrectWhileCompactionRuns() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> problem = new AtomicReference<>();
      Runnable reader = () -> {
        try {
          while (!stop.get() && problem.get() == null) {
            long compact = s.compactRevision();
            long current = s.currentRevision();
            long at = Math.max(compact, current - 3);
            if (at <= 1) {
              continue;
            }
            try {
              KvStore.RangeResult r = s.range(b("p"), b("q"), at, 0, false);
              // Every revision rewrites all 20 keys with the value "v<revision>".
              if (r.count() != 20) {
                problem.set(new AssertionError("count " + r.count() + " at " + at));
              }
              for (var kv : r.kvs()) {
                if (!kv.getValue().toStringUtf8().equals("v" + at)) {
                  problem.set(new AssertionError("at " + at + " saw " + kv));
                }
              }
            } catch (EtcdException e) {
              if (e.error() != EtcdError.COMPACTED) {
                throw e;
              }
            }
          }
        } catch (Throwable t) {
          problem.compareAndSet(null, t);
        }
      };
      Thread r1 = new Thread(reader);
      Thread r2 = new Thread(reader);
      r1.start();
      r2.start();
      CompletionStage<Void> last = null;
      for (int i = 1; i <= 600; i++) {
        KvStore.WriteTxn t = s.beginTxn(i);
        long rev = t.revision();
        for (int k = 0; k < 20; k++) {
          t.put(b("p" + k), b("v" + rev), 0);
        }
        t.end();
        s.commitBatch();
        if (i % 50 == 0) {
          last = s.compact(s.currentRevision() - 2);
        }
      }
      last.toCompletableFuture().get(30, TimeUnit.SECONDS);
      stop.set(true);
      r1.join();
      r2.join();
      assertNull(problem.get(), String.valueOf(problem.get()));
      assertEquals(599, s.compactRevision());
      // Kept: revision 599 (newest at the compaction) and 600, 601: 3 revisions of 20 keys.
      assertEquals(60, s.revisionsOnDisk());
    }
  }

  @Test
  void leasesAreWrittenWithTheBatchAndSurviveReopen() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    try (MvccStore s = MvccStore.open(dir)) {
      s.putLease(7, 30);
      s.putLease(8, 60);
      s.setApplied(1, 1);
      s.commitBatch();
      s.deleteLease(7);
      s.setApplied(2, 1);
      s.commitBatch();
      assertEquals(Map.of(8L, 60L), s.leases());
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(Map.of(8L, 60L), s.leases());
      assertEquals(2, s.appliedIndex());
      assertTrue(s.dbSize() > 0);
      assertFalse(s.dbSizeInUse() < 0);
    }
  }
}
