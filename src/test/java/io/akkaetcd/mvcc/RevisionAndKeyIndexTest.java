package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
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
    KeyIndex k = KeyIndex.EMPTY.put(new Revision(2, 0)).put(new Revision(4, 0)).tombstone(new Revision(6, 0))
        .put(new Revision(8, 1));
    assertNull(k.at(1));
    assertEquals(1, k.live(2).version());
    assertEquals(2, k.live(5).version());
    assertEquals(2, k.live(5).createRevision());
    assertNull(k.live(6), "deleted at 6");
    assertNull(k.live(7));
    assertEquals(1, k.live(8).version(), "a new generation restarts the version");
    assertEquals(8, k.live(8).createRevision());
    assertThrows(IllegalStateException.class, () -> KeyIndex.EMPTY.put(new Revision(3, 0)).put(new Revision(3, 0)));
  }

  @Test
  void everyFieldOfAWriteComesBackFromThePackedSlots() {
    KeyIndex k = KeyIndex.EMPTY.put(new Revision(3, 7)).put(new Revision(5, Integer.MAX_VALUE))
        .tombstone(new Revision(9, 1)).put(new Revision(Long.MAX_VALUE, 0));
    assertEquals(List.of(
        new KeyIndex.Version(new Revision(3, 7), false, 3, 1),
        new KeyIndex.Version(new Revision(5, Integer.MAX_VALUE), false, 3, 2),
        new KeyIndex.Version(new Revision(9, 1), true, 0, 0),
        new KeyIndex.Version(new Revision(Long.MAX_VALUE, 0), false, Long.MAX_VALUE, 1)), k.versions());
    assertTrue(k.contains(new Revision(9, 1)), "the tombstone mark is not part of the sub revision");
    assertFalse(k.contains(new Revision(9, 0)));
    assertThrows(IllegalArgumentException.class, () -> KeyIndex.EMPTY.put(new Revision(0, 0)),
        "main revision 0 marks a free slot, so no write may have it");
  }

  @Test
  void compactionKeepsTheNewestRevisionAtOrBeforeItUnlessDeleted() {
    KeyIndex k = KeyIndex.EMPTY.put(new Revision(2, 0)).put(new Revision(4, 0)).tombstone(new Revision(6, 0))
        .put(new Revision(8, 0));
    KeyIndex at5 = k.compact(5);
    assertEquals(List.of(4L, 6L, 8L), at5.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(2, at5.live(5).version(), "reads at the compaction revision still work");
    KeyIndex at7 = k.compact(7);
    assertEquals(List.of(8L), at7.versions().stream().map(v -> v.revision().main()).toList(),
        "a tombstone at or before the compaction revision goes, with its generation");
    assertTrue(KeyIndex.EMPTY.put(new Revision(2, 0)).tombstone(new Revision(3, 0)).compact(3).isEmpty());
    assertEquals(k, k.compact(1), "nothing to drop: the same index");
  }

  @Test
  void compactionNeverChangesWhatAReadAtOrAfterItSees() {
    KeyIndex k = KeyIndex.EMPTY.put(new Revision(2, 0)).put(new Revision(3, 1)).tombstone(new Revision(5, 0))
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
    KeyIndex k = KeyIndex.EMPTY.put(new Revision(2, 0)).put(new Revision(4, 1)).tombstone(new Revision(6, 0))
        .put(new Revision(8, 0));
    record Case(long rev, List<Long> mains) {}
    for (Case c : List.of(new Case(0, List.of(2L, 4L, 6L, 8L)), new Case(2, List.of(2L, 4L, 6L, 8L)),
        new Case(3, List.of(4L, 6L, 8L)), new Case(6, List.of(6L, 8L)), new Case(9, List.of()))) {
      assertEquals(c.mains(), k.since(c.rev()).stream().map(v -> v.revision().main()).toList(), "since " + c.rev());
    }
  }

  @Test
  void containsFindsExactlyTheWrittenRevisions() {
    KeyIndex k = KeyIndex.EMPTY.put(new Revision(2, 0)).put(new Revision(4, 1)).tombstone(new Revision(6, 0));
    assertTrue(k.contains(new Revision(2, 0)));
    assertTrue(k.contains(new Revision(4, 1)));
    assertTrue(k.contains(new Revision(6, 0)));
    assertFalse(k.contains(new Revision(4, 0)));
    assertFalse(k.contains(new Revision(3, 0)));
    assertFalse(k.contains(new Revision(7, 0)));
    assertFalse(KeyIndex.EMPTY.contains(new Revision(1, 0)));
  }

  @Test
  void everyViewStaysFrozenWhenLaterOnesAppendOrFork() {
    KeyIndex a = KeyIndex.EMPTY.put(new Revision(2, 0));
    KeyIndex b = a.put(new Revision(3, 0));
    KeyIndex c = b.put(new Revision(4, 0));
    // A fork from b must not overwrite c's slot, and neither may change a or b.
    KeyIndex fork = b.tombstone(new Revision(5, 0));
    assertEquals(List.of(2L), a.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(List.of(2L, 3L), b.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(List.of(2L, 3L, 4L), c.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(List.of(2L, 3L, 5L), fork.versions().stream().map(v -> v.revision().main()).toList());
    assertEquals(3, c.live(9).version());
    assertNull(fork.live(9));
    assertEquals(2, b.live(9).version());
  }

  @Test
  void appendingIsNotQuadratic() {
    KeyIndex k = KeyIndex.EMPTY;
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
