package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The LevelDB store itself: revisions, history, compaction on disk, reopen, hash, concurrent reads. */
class MvccStoreTest {
  @TempDir Path tmp;

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  static final ByteString ALL = ByteString.copyFrom(new byte[] {0});

  private static long put(MvccStore s, long index, String key, String value) {
    KvStore.WriteTxn t = s.beginTxn(index);
    t.put(b(key), b(value), 0);
    t.end();
    s.commitBatch();
    return s.currentRevision();
  }

  private static long delete(MvccStore s, long index, String key) {
    KvStore.WriteTxn t = s.beginTxn(index);
    t.deleteRange(b(key), ByteString.EMPTY);
    t.end();
    s.commitBatch();
    return s.currentRevision();
  }

  private static EtcdError errorOf(Runnable r) {
    return assertThrows(EtcdException.class, r::run).error();
  }

  @Test
  void historyVersionsAndTombstones() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      assertEquals(1, s.currentRevision(), "an empty store is at revision 1");
      assertEquals(2, put(s, 1, "k", "a"));
      assertEquals(3, put(s, 2, "k", "b"));
      assertEquals(4, delete(s, 3, "k"));
      assertEquals(4, delete(s, 4, "k"), "deleting a missing key writes nothing");
      assertEquals(5, put(s, 5, "k", "c"));
      assertEquals(5, s.appliedIndex());

      KeyValue now = s.range(b("k"), ByteString.EMPTY, 0, 0, false).kvs().get(0);
      assertEquals(1, now.getVersion());
      assertEquals(5, now.getCreateRevision());
      KeyValue atThree = s.range(b("k"), ByteString.EMPTY, 3, 0, false).kvs().get(0);
      assertEquals("b", atThree.getValue().toStringUtf8());
      assertEquals(2, atThree.getVersion());
      assertEquals(2, atThree.getCreateRevision());
      assertEquals(0, s.range(b("k"), ByteString.EMPTY, 4, 0, false).count());
      assertEquals(EtcdError.FUTURE_REV, errorOf(() -> s.range(b("k"), ByteString.EMPTY, 6, 0, false)));
    }
  }

  @Test
  void aTxnIsOneRevisionWithSubRevisionsAndEventsInOrder() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      put(s, 1, "a", "1");
      KvStore.WriteTxn t = s.beginTxn(2);
      assertEquals(3, t.revision());
      t.put(b("b"), b("2"), 0);
      assertEquals(1, t.range(b("b"), ByteString.EMPTY, 0, false).count(), "sees its own write");
      List<KeyValue> deleted = t.deleteRange(b("a"), b("c"));
      assertEquals(2, deleted.size());
      t.put(b("c"), b("3"), 0);
      List<Event> events = t.end();
      assertEquals(List.of(Event.EventType.PUT, Event.EventType.DELETE, Event.EventType.DELETE, Event.EventType.PUT),
          events.stream().map(Event::getType).toList());
      assertEquals(2, s.currentRevision(), "not visible before the batch is committed");
      s.commitBatch();
      assertEquals(3, s.currentRevision());
      assertEquals(3, events.get(1).getKv().getModRevision(), "a delete event carries the deletion revision");

      KvStore.WriteTxn readOnly = s.beginTxn(3);
      readOnly.range(ByteString.EMPTY, ALL, 0, false);
      assertTrue(readOnly.end().isEmpty());
      s.commitBatch();
      assertEquals(3, s.currentRevision(), "a read-only txn does not advance the revision");
      assertEquals(3, s.appliedIndex(), "but its entry is applied");
    }
  }

  @Test
  void rangeLimitCountFromKeyAndAllKeys() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      long i = 1;
      for (String k : List.of("a", "b", "c", "d")) {
        put(s, i++, k, k);
      }
      KvStore.RangeResult limited = s.range(b("a"), b("d"), 0, 2, false);
      assertEquals(2, limited.kvs().size());
      assertEquals(3, limited.count(), "count ignores the limit");
      assertEquals(2, s.range(b("c"), ALL, 0, 0, false).count(), "from key");
      assertEquals(4, s.range(ALL, ALL, 0, 0, false).count(), "every key");
      assertEquals(4, s.range(ALL, ALL, 0, 0, true).count());
      assertTrue(s.range(ALL, ALL, 0, 0, true).kvs().isEmpty(), "count only");
      assertEquals(0, s.range(b("d"), b("a"), 0, 0, false).count(), "an empty interval");
    }
  }

  @Test
  void compactionDropsHistoryOnDiskAndSurvivesReopen() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    long hashBefore;
    try (MvccStore s = MvccStore.open(dir)) {
      put(s, 1, "k", "1");      // 2
      put(s, 2, "k", "2");      // 3
      put(s, 3, "gone", "x");   // 4
      delete(s, 4, "gone");     // 5
      put(s, 5, "k", "3");      // 6
      var done = s.compact(5);
      s.setApplied(6, 1);
      s.commitBatch();
      done.toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(2, s.revisionsOnDisk(), "physical=true: gone from disk when the stage completes");
      assertEquals(5, s.compactRevision());
      assertEquals(EtcdError.COMPACTED, errorOf(() -> s.range(b("k"), ByteString.EMPTY, 4, 0, false)));
      assertEquals("2", s.range(b("k"), ByteString.EMPTY, 5, 0, false).kvs().get(0).getValue().toStringUtf8());
      assertEquals(0, s.range(b("gone"), ByteString.EMPTY, 5, 0, false).count());
      assertEquals(EtcdError.COMPACTED, errorOf(() -> s.compact(5)));
      assertEquals(EtcdError.FUTURE_REV, errorOf(() -> s.compact(7)));
      hashBefore = s.hashKV(0).hash();
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(6, s.currentRevision());
      assertEquals(5, s.compactRevision());
      assertEquals(6, s.appliedIndex());
      assertEquals(hashBefore, s.hashKV(0).hash(), "the same data hashes the same after reopening");
      assertEquals("3", s.range(b("k"), ByteString.EMPTY, 0, 0, false).kvs().get(0).getValue().toStringUtf8());
      assertEquals(EtcdError.COMPACTED, errorOf(() -> s.range(b("k"), ByteString.EMPTY, 3, 0, false)));
      // On disk only revision 3 (k's newest at the compaction) and 6 are left.
      assertEquals(2, s.revisionsOnDisk());
    }
  }

  @Test
  void historyIsReadFromTheCompactionRevisionOnButNotBelowIt() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      for (int i = 1; i <= 3; i++) {
        put(s, i, "w", Integer.toString(i)); // revisions 2, 3, 4
      }
      s.compact(3).toCompletableFuture().get(10, TimeUnit.SECONDS);
      // etcd's watch: a start revision at the compaction revision is served, only one below fails.
      List<Event> events = s.events(3, 4);
      assertEquals(List.of(3L, 4L), events.stream().map(e -> e.getKv().getModRevision()).toList());
      assertEquals("2", events.get(0).getKv().getValue().toStringUtf8());
      assertEquals(EtcdError.COMPACTED, errorOf(() -> s.events(2, 4)));
    }
  }

  @Test
  void sizeInUseCountsTheRowsHeldAndDefragmentShrinksTheFiles() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    long afterCompaction;
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(0, s.dbSizeInUse(), "an empty store holds no data, whatever LevelDB's files take");
      String value = "v".repeat(1000);
      for (int i = 1; i <= 200; i++) {
        put(s, i, "k", value + i);
      }
      long full = s.dbSizeInUse();
      assertTrue(full > 200 * 1000 && full < 200 * 1100, "200 rows of about 1 KB: " + full);
      s.compact(s.currentRevision()).toCompletableFuture().get(10, TimeUnit.SECONDS);
      afterCompaction = s.dbSizeInUse();
      assertTrue(afterCompaction > 1000 && afterCompaction < 1100, "one row left: " + afterCompaction);
      long before = s.dbSize();
      s.defragment().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertTrue(s.dbSize() < before - 100_000, "defragment dropped the deleted rows' files: "
          + before + " -> " + s.dbSize());
    }
    try (MvccStore s = MvccStore.open(dir)) {
      assertEquals(afterCompaction, s.dbSizeInUse(), "counted again from the rows at open");
    }
  }

  @Test
  void hashKvIsTheSameForTheSameHistoryAndDiffersOtherwise() throws Exception {
    try (MvccStore a = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"));
         MvccStore b = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      for (int i = 1; i <= 20; i++) {
        put(a, i, "k" + (i % 5), "v" + i);
        put(b, i, "k" + (i % 5), "v" + i);
      }
      assertEquals(a.hashKV(0), b.hashKV(0));
      assertEquals(a.hashKV(10), b.hashKV(10));
      put(a, 21, "x", "1");
      put(b, 21, "x", "2");
      assertNotEquals(a.hashKV(0).hash(), b.hashKV(0).hash());
      assertEquals(a.hashKV(21), b.hashKV(21), "history up to 21 is still the same");
    }
  }

  @Test
  void readersOnOtherThreadsAlwaysSeeAConsistentRevision() throws Exception {
    try (MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<String> problem = new AtomicReference<>();
      Thread reader = new Thread(() -> {
        while (!stop.get() && problem.get() == null) {
          // Every txn writes both keys with the same value, so any one revision shows them equal.
          KvStore.RangeResult r = s.range(b("p"), b("q"), 0, 0, false);
          if (r.count() == 2 && !r.kvs().get(0).getValue().equals(r.kvs().get(1).getValue())) {
            problem.set("torn read at revision " + r.revision() + ": " + r.kvs());
          }
          long rev = s.currentRevision();
          if (rev > 2) {
            KvStore.RangeResult past = s.range(b("p"), b("q"), rev - 1, 0, false);
            if (past.count() == 2 && past.kvs().get(0).getModRevision() > rev - 1) {
              problem.set("a past read saw a later revision");
            }
          }
        }
      });
      reader.start();
      for (int i = 1; i <= 2000; i++) {
        KvStore.WriteTxn t = s.beginTxn(i);
        t.put(b("p1"), b("v" + i), 0);
        t.put(b("p2"), b("v" + i), 0);
        t.end();
        if (i % 3 == 0) {
          s.commitBatch();
        }
      }
      s.commitBatch();
      stop.set(true);
      reader.join();
      assertNull(problem.get(), problem.get());
      assertEquals(2001, s.currentRevision());
    }
  }

  @Test
  void aKeyWrittenManyTimesStaysCheapAndReopensWithItsWholeHistory() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "mvcc");
    int writes = 100_000;
    long start = System.nanoTime();
    try (MvccStore s = MvccStore.open(dir)) {
      for (int i = 1; i <= writes; i++) {
        KvStore.WriteTxn t = s.beginTxn(i);
        t.put(b("hot"), b("v" + i), 0);
        t.end();
        if (i % 100 == 0) {
          s.commitBatch();
        }
      }
      s.commitBatch();
    }
    try (MvccStore s = MvccStore.open(dir)) {
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(millis < 60_000, writes + " writes of one key and a reopen took " + millis + " ms");
      assertEquals(writes + 1, s.currentRevision());
      assertEquals(writes, s.appliedIndex());
      KeyValue now = s.range(b("hot"), ByteString.EMPTY, 0, 0, false).kvs().get(0);
      assertEquals(writes, now.getVersion());
      assertEquals(2, now.getCreateRevision());
      KeyValue past = s.range(b("hot"), ByteString.EMPTY, 500, 0, false).kvs().get(0);
      assertEquals("v499", past.getValue().toStringUtf8());
      assertEquals(499, past.getVersion());
    }
  }

  @Test
  void readersRacingCloseGetStoppedNotACrash() throws Exception {
    MvccStore s = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"));
    for (int i = 1; i <= 50; i++) {
      put(s, i, "k" + i, "v" + i);
    }
    AtomicReference<Throwable> problem = new AtomicReference<>();
    List<Thread> readers = new java.util.ArrayList<>();
    java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(4);
    for (int r = 0; r < 4; r++) {
      Thread t = new Thread(() -> {
        reading.countDown();
        try {
          while (true) {
            s.range(ALL, ALL, 0, 0, false);
            s.hashKV(0);
            s.events(2, 10);
          }
        } catch (EtcdException e) {
          if (e.error() != EtcdError.STOPPED) {
            problem.compareAndSet(null, e);
          }
        } catch (Throwable e) {
          problem.compareAndSet(null, e);
        }
      });
      readers.add(t);
      t.start();
    }
    assertTrue(reading.await(10, TimeUnit.SECONDS));
    s.close();
    for (Thread t : readers) {
      t.join(10_000);
      assertTrue(!t.isAlive(), "a reader still runs after close");
    }
    assertNull(problem.get(), String.valueOf(problem.get()));
    assertEquals(EtcdError.STOPPED, errorOf(() -> s.range(ALL, ALL, 0, 0, false)));
    s.close(); // idempotent
  }

  @Test
  void hashKvWhileACompactionRunsMatchesEitherSideOfIt() throws Exception {
    try (MvccStore a = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"));
         MvccStore b = MvccStore.open(Files.createTempDirectory(tmp, "mvcc"))) {
      for (int i = 1; i <= 3000; i++) {
        put(a, i, "k" + (i % 7), "v" + i);
        put(b, i, "k" + (i % 7), "v" + i);
      }
      long rev = a.currentRevision();
      KvStore.HashResult before = a.hashKV(rev);
      b.compact(2500).toCompletableFuture().get(30, TimeUnit.SECONDS);
      KvStore.HashResult after = b.hashKV(rev);
      assertEquals(2500, after.compactRevision());
      assertNotEquals(before.hash(), after.hash());

      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<String> problem = new AtomicReference<>();
      Thread hasher = new Thread(() -> {
        while (!stop.get()) {
          KvStore.HashResult h = a.hashKV(rev);
          KvStore.HashResult expected = h.compactRevision() == 0 ? before : after;
          if (!h.equals(expected)) {
            problem.compareAndSet(null, h + " but expected " + expected);
          }
        }
      });
      hasher.start();
      a.compact(2500).toCompletableFuture().get(30, TimeUnit.SECONDS);
      stop.set(true);
      hasher.join();
      assertNull(problem.get(), problem.get());
      assertEquals(after, a.hashKV(rev));
    }
  }
}
