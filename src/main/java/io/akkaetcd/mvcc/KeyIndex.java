package io.akkaetcd.mvcc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The history of one key (etcd's keyIndex): every revision that wrote it, in order, each with
 * whether it was a delete and the create revision and version the key had then. A delete ends a
 * generation; the next put starts a new one at version 1.
 *
 * <p>Every instance is a frozen view: a change returns a new KeyIndex, so readers on other threads
 * always see a whole history. Invariant: revisions strictly increase.
 *
 * <p>Appending is amortized O(1), not a copy of the whole history (a key updated a million times
 * with compaction off is an ordinary etcd workload): a view is the first {@code size} slots of a
 * backing array with spare room, and an append by the single writer (the MVCC applier) fills the
 * next free slot and returns a longer view of the same array. Older views never read past their
 * own {@code size}, and a slot is written before the longer view is published (through the
 * store's concurrent map), so readers never see a slot being filled. Appending to a view that is
 * not the newest of its array (a fork) copies.
 *
 * <p>Memory: every write is four longs in one array ({@value #SLOTS} slots: main revision, sub
 * revision with the tombstone bit, create revision, version), not objects; a key written once costs
 * this object and a 48-byte array, where a record per write with its Revision cost 120 bytes. The
 * {@link Version} records callers see are made on each read.
 */
public final class KeyIndex {
  /** One write of the key. */
  public record Version(Revision revision, boolean tombstone, long createRevision, long version) {}

  static final KeyIndex EMPTY = new KeyIndex(new long[0], 0);

  /** Longs per write: main, sub (with {@link #TOMBSTONE}), create revision, version. */
  private static final int SLOTS = 4;
  /** Marks a delete in the sub slot; a sub revision never comes near it (etcd's is an int). */
  private static final long TOMBSTONE = 1L << 62;

  /** Writes in revision order, {@value #SLOTS} longs each; a free write has main revision 0. */
  private final long[] slots;
  private final int size;

  private KeyIndex(long[] slots, int size) {
    this.slots = slots;
    this.size = size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  List<Version> versions() {
    return from(0);
  }

  private long main(int i) {
    return slots[i * SLOTS];
  }

  private boolean isTombstone(int i) {
    return (slots[i * SLOTS + 1] & TOMBSTONE) != 0;
  }

  private Version version(int i) {
    int at = i * SLOTS;
    long sub = slots[at + 1];
    return new Version(new Revision(slots[at], sub & ~TOMBSTONE), (sub & TOMBSTONE) != 0, slots[at + 2], slots[at + 3]);
  }

  /** Index of the newest write whose main revision is at or before {@code atRev}, or -1. */
  private int indexAt(long atRev) {
    int lo = 0;
    int hi = size - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (main(mid) <= atRev) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** The newest write at or before store revision {@code atRev}, or null (etcd's keyIndex.get). */
  Version at(long atRev) {
    int i = indexAt(atRev);
    return i < 0 ? null : version(i);
  }

  /** The live (not deleted) version visible at {@code atRev}, or null. */
  Version live(long atRev) {
    int i = indexAt(atRev);
    return i < 0 || isTombstone(i) ? null : version(i);
  }

  /** The newest write, or null. */
  Version last() {
    return size == 0 ? null : version(size - 1);
  }

  /** The writes with main revision at or after {@code rev}, in order (etcd's keyIndex.since). */
  List<Version> since(long rev) {
    return from(indexAt(rev - 1) + 1);
  }

  /** The writes from the {@code first}-th on. */
  private List<Version> from(int first) {
    List<Version> out = new ArrayList<>(size - first);
    for (int i = first; i < size; i++) {
      out.add(version(i));
    }
    return List.copyOf(out);
  }

  /** A put at {@code rev}: continues the live generation or starts a new one. */
  KeyIndex put(Revision rev) {
    if (size == 0 || isTombstone(size - 1)) {
      return append(rev, false, rev.main(), 1);
    }
    int last = (size - 1) * SLOTS;
    return append(rev, false, slots[last + 2], slots[last + 3] + 1);
  }

  /** A delete at {@code rev}; only valid while the key is live. */
  KeyIndex tombstone(Revision rev) {
    if (size == 0 || isTombstone(size - 1)) {
      throw new IllegalStateException("deleting a key that is not live");
    }
    return append(rev, true, 0, 0);
  }

  /** Appends a write; only the single writer may call this (see the class doc). */
  KeyIndex append(Version v) {
    return append(v.revision(), v.tombstone(), v.createRevision(), v.version());
  }

  /** Appends a write given by its fields; only the single writer may call this (see the class doc). */
  KeyIndex append(Revision rev, boolean tombstone, long createRevision, long version) {
    if (rev.main() <= 0 || rev.sub() < 0 || rev.sub() >= TOMBSTONE) {
      throw new IllegalArgumentException("not a revision of a write: " + rev);
    }
    if (size > 0) {
      int last = (size - 1) * SLOTS;
      long lastMain = slots[last];
      if (lastMain > rev.main() || lastMain == rev.main() && (slots[last + 1] & ~TOMBSTONE) >= rev.sub()) {
        throw new IllegalStateException("revisions must increase: " + rev);
      }
    }
    int at = size * SLOTS;
    long[] target = slots;
    if (at >= slots.length || slots[at] != 0) { // full, or a fork: another view filled this slot
      target = Arrays.copyOf(slots, (size + (size >> 1) + 1) * SLOTS); // a first write gets room for one
    }
    target[at + 1] = rev.sub() | (tombstone ? TOMBSTONE : 0);
    target[at + 2] = createRevision;
    target[at + 3] = version;
    target[at] = rev.main(); // last: a non-zero main marks the slot as taken
    return new KeyIndex(target, size + 1);
  }

  /**
   * Compaction at {@code rev} (etcd's rule): keeps every write after {@code rev} and the newest
   * one at or before it, unless that one is a delete (its generation is over: nothing at or after
   * {@code rev} can read it). May return an empty index; returns this one if nothing goes.
   */
  KeyIndex compact(long rev) {
    int keep = indexAt(rev);
    if (keep < 0) {
      return this;
    }
    int from = isTombstone(keep) ? keep + 1 : keep;
    if (from == 0) {
      return this;
    }
    return new KeyIndex(Arrays.copyOfRange(slots, from * SLOTS, size * SLOTS), size - from);
  }

  /** Whether {@code rev} is one of this key's writes. */
  boolean contains(Revision rev) {
    int i = indexAt(rev.main());
    for (; i >= 0 && main(i) == rev.main(); i--) {
      if ((slots[i * SLOTS + 1] & ~TOMBSTONE) == rev.sub()) {
        return true;
      }
    }
    return false;
  }
}
