package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RevisionAndKeyIndexTest {
  @Test
  void revisionsOrderByMainThenSubAndTheirBytesSortTheSameWay() {
    List<Revision> ordered = List.of(new Revision(1, 0), new Revision(1, 1), new Revision(2, 0),
        new Revision(255, 7), new Revision(256, 0), new Revision(Long.MAX_VALUE, 0));
    for (int i = 1; i < ordered.size(); i++) {
      Revision a = ordered.get(i - 1);
      Revision b = ordered.get(i);
      assertTrue(a.compareTo(b) < 0);
      assertTrue(Arrays.compareUnsigned(a.toBytes(false), b.toBytes(false)) < 0, a + " < " + b + " as bytes");
    }
  }

  @Test
  void revisionBytesRoundTripAndMarkTombstones() {
    Revision r = new Revision(42, 3);
    byte[] live = r.toBytes(false);
    byte[] dead = r.toBytes(true);
    assertEquals(17, live.length);
    assertEquals(r, Revision.fromBytes(live, 0));
    assertEquals(r, Revision.fromBytes(dead, 0));
    assertFalse(Revision.isTombstone(live, 0));
    assertTrue(Revision.isTombstone(dead, 0));
  }

  @Test
  void keyIndexTracksGenerationsVersionsAndCreateRevisions() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).put(new Revision(4, 0)).tombstone(new Revision(6, 0))
        .put(new Revision(8, 1));
    assertNull(k.at(1));
    assertEquals(1, k.live(2).version());
    assertEquals(2, k.live(5).version());
    assertEquals(2, k.live(5).createRevision());
    assertNull(k.live(6), "deleted at 6");
    assertNull(k.live(7));
    assertEquals(1, k.live(8).version(), "a new generation restarts the version");
    assertEquals(8, k.live(8).createRevision());
    assertThrows(IllegalStateException.class, () -> new KeyIndex(new byte[] {1}).put(new Revision(3, 0)).put(new Revision(3, 0)));
  }

  @Test
  void everyFieldOfAWriteComesBackFromThePackedSlots() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(3, 7));
    k.rowWritten(300);
    k.put(new Revision(5, 0xFFFF_FFFFL));
    k.rowWritten((1 << 30) - 1);
    k.tombstone(new Revision(9, 1)).put(new Revision(Long.MAX_VALUE, 0));
    k.rowWritten(1 << 30); // too large to record: not known
    k.append(new Revision(Long.MAX_VALUE, 1), false, 1, 2, Integer.MAX_VALUE);
    assertEquals(List.of(
        new KeyIndex.Version(new Revision(3, 7), false, 3, 1, 300),
        new KeyIndex.Version(new Revision(5, 0xFFFF_FFFFL), false, 3, 2, (1 << 30) - 1),
        new KeyIndex.Version(new Revision(9, 1), true, 0, 0, 0),
        new KeyIndex.Version(new Revision(Long.MAX_VALUE, 0), false, Long.MAX_VALUE, 1, 0),
        new KeyIndex.Version(new Revision(Long.MAX_VALUE, 1), false, 1, 2, 0)), k.versions());
    assertTrue(k.contains(new Revision(9, 1)), "the tombstone mark is not part of the sub revision");
    assertTrue(k.contains(new Revision(5, 0xFFFF_FFFFL)), "nor is the row's size");
    assertFalse(k.contains(new Revision(9, 0)));
    assertThrows(IllegalArgumentException.class, () -> new KeyIndex(new byte[] {1}).put(new Revision(0, 0)),
        "main revision 0 marks a free slot, so no write may have it");
    assertThrows(IllegalArgumentException.class, () -> new KeyIndex(new byte[] {1}).put(new Revision(1, 1L << 32)),
        "a sub revision has 32 bits");
  }

  @Test
  void compactionKeepsTheNewestRevisionAtOrBeforeItUnlessDeleted() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).put(new Revision(4, 0)).tombstone(new Revision(6, 0))
        .put(new Revision(8, 0));
    KeyIndex at5 = k.compact(5);
    assertEquals(List.of(4L, 6L, 8L), at5.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(2, at5.live(5).version(), "reads at the compaction revision still work");
    KeyIndex at7 = k.compact(7);
    assertEquals(List.of(8L), at7.versions().stream().map(v -> v.revision().main()).toList(),
        "a tombstone at or before the compaction revision goes, with its generation");
    assertTrue(new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).tombstone(new Revision(3, 0)).compact(3).isEmpty());
    assertEquals(k, k.compact(1), "nothing to drop: the same index");
  }

  @Test
  void compactionNeverChangesWhatAReadAtOrAfterItSees() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).put(new Revision(3, 1)).tombstone(new Revision(5, 0))
        .put(new Revision(7, 0)).put(new Revision(9, 2)).tombstone(new Revision(10, 0)).put(new Revision(12, 0));
    for (long compactAt = 0; compactAt <= 13; compactAt++) {
      KeyIndex c = k.compact(compactAt);
      for (long at = compactAt; at <= 14; at++) {
        assertEquals(k.live(at), c.live(at), "compacted at " + compactAt + ", read at " + at);
      }
      for (KeyIndex.Version v : c.versions()) {
        assertTrue(v.revision().main() > compactAt || v.equals(k.at(compactAt)),
            "compacted at " + compactAt + " kept " + v);
      }
    }
  }

  @Test
  void sinceListsTheWritesFromARevisionOn() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).put(new Revision(4, 1)).tombstone(new Revision(6, 0))
        .put(new Revision(8, 0));
    record Case(long rev, List<Long> mains) {}
    for (Case c : List.of(new Case(0, List.of(2L, 4L, 6L, 8L)), new Case(2, List.of(2L, 4L, 6L, 8L)),
        new Case(3, List.of(4L, 6L, 8L)), new Case(6, List.of(6L, 8L)), new Case(9, List.of()))) {
      assertEquals(c.mains(), k.since(c.rev()).stream().map(v -> v.revision().main()).toList(), "since " + c.rev());
    }
  }

  @Test
  void containsFindsExactlyTheWrittenRevisions() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).put(new Revision(4, 1)).tombstone(new Revision(6, 0));
    assertTrue(k.contains(new Revision(2, 0)));
    assertTrue(k.contains(new Revision(4, 1)));
    assertTrue(k.contains(new Revision(6, 0)));
    assertFalse(k.contains(new Revision(4, 0)));
    assertFalse(k.contains(new Revision(3, 0)));
    assertFalse(k.contains(new Revision(7, 0)));
    assertFalse(new KeyIndex(new byte[] {1}).contains(new Revision(1, 0)));
  }

  @Test
  void compactionLeavesTheHistoryItCompactedAsItWas() {
    KeyIndex k = new KeyIndex(new byte[] {1}).put(new Revision(2, 0)).put(new Revision(3, 0)).put(new Revision(4, 0));
    KeyIndex compacted = k.compact(3);
    compacted.put(new Revision(5, 0));
    assertEquals(List.of(2L, 3L, 4L), k.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(List.of(3L, 4L, 5L), compacted.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(4, compacted.live(9).version(), "versions carry on across the compaction");
  }

  /**
   * The store's pattern: one writer appends a write at every revision (a delete at every fifth),
   * compacts now and then by putting a new history in place of the old one, and publishes each
   * revision after its write; readers read at the published revision from whichever history they
   * got. Each must see that revision's write and every write before it that compaction kept. (A
   * reader that fell behind the compaction, as in the store, re-checks and does not count.)
   */
  @Test
  void readersOnOtherThreadsSeeWholeWritesWhileTheWriterAppendsAndCompacts() throws Exception {
    int last = 300_000;
    AtomicReference<KeyIndex> current = new AtomicReference<>(new KeyIndex(new byte[] {1}));
    AtomicLong published = new AtomicLong(1);
    AtomicLong compacted = new AtomicLong(0);
    AtomicReference<String> wrong = new AtomicReference<>();
    ExecutorService readers = Executors.newFixedThreadPool(2);
    List<Future<Long>> reads = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      reads.add(readers.submit(() -> {
        long checked = 0;
        for (long at = published.get(); at < last && wrong.get() == null; at = published.get()) {
          KeyIndex k = current.get();
          KeyIndex.Version v = at < 2 ? null : k.at(at);
          boolean wrongRead = at >= 2 && (v == null || v.revision().main() != at || v.tombstone() != (at % 5 == 0));
          if (wrongRead && at > compacted.get()) { // the store publishes its compactRevision first too (Compaction)
            wrong.compareAndSet(null, "at " + at + " read " + v);
          }
          List<KeyIndex.Version> all = k.versions();
          for (int i = 1; i < all.size(); i++) {
            if (all.get(i).revision().main() != all.get(i - 1).revision().main() + 1) {
              wrong.compareAndSet(null, "a gap after " + all.get(i - 1) + " in " + all.size() + " writes");
            }
          }
          checked++;
        }
        return checked;
      }));
    }
    for (long rev = 2; rev <= last; rev++) {
      KeyIndex k = current.get();
      if (rev % 5 == 0) {
        k.tombstone(new Revision(rev, 0));
      } else {
        k.put(new Revision(rev, 0));
      }
      if (rev % 16 == 0) {
        // as KvIndex.compact replaces it in the index; a compacted history's array is full,
        // so the appends after it grow the array again and again
        compacted.set(rev - 8);
        current.set(k.compact(rev - 8));
      }
      published.set(rev);
    }
    readers.shutdown();
    long checked = 0;
    for (Future<Long> f : reads) {
      checked += f.get(60, TimeUnit.SECONDS);
    }
    assertNull(wrong.get());
    assertTrue(checked > 0, "the readers read");
  }

  @Test
  void appendingIsNotQuadratic() {
    KeyIndex k = new KeyIndex(new byte[] {1});
    long start = System.nanoTime();
    for (int i = 1; i <= 1_000_000; i++) {
      k = k.put(new Revision(i + 1, 0));
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertEquals(1_000_000, k.live(Long.MAX_VALUE).version());
    assertEquals(1_000_000, k.size());
    assertTrue(millis < 5_000, "a million appends took " + millis + " ms");
    assertEquals(List.of(1_000_001L), k.compact(1_000_001).versions().stream().map(v -> v.revision().main()).toList());
  }
}
