package io.akkaetcd.mvcc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The history of one key (etcd's keyIndex): every revision that wrote it, in order, each with
 * whether it was a delete and the create revision and version the key had then. A delete ends a
 * generation; the next put starts a new one at version 1. Invariant: revisions strictly increase.
 *
 * <p>One writer, many readers. Only the MVCC applier appends ({@link #put}, {@link #tombstone},
 * {@link #append}), in place; any thread may read. Compaction does not change a history: it
 * returns a new one, which the applier puts into the index in its place, so a reader holding the
 * old one still reads a whole history.
 *
 * <p>Why in place: the key index is old-generation data, and a put that stored a new (young) object
 * into it dirtied a card that the next young collection had to scan, about one a put; half of each
 * young pause under 64 writing clients was that scan (loadtest/RESULTS.md, 2026-11-24). An append
 * now writes only numbers into the existing array while it has room; a reference is stored only
 * when the array grows (by half).
 *
 * <p>How a reader sees a whole history: the writer fills a write's slots, and, when the array had
 * no room, publishes the grown copy in {@link #slots}, all before it publishes the larger
 * {@link #size}. A reader reads {@code size} first and {@code slots} second (both volatile): the
 * array it gets is the one that was current when that size was published, or a later copy, and
 * either holds the first {@code size} writes. Writes past its {@code size} are ones it ignores.
 * Every read method takes that pair once ({@link #snapshot}) and works on it.
 *
 * <p>Memory: every write is four longs in one array ({@value #SLOTS} slots: main revision, sub
 * revision with the tombstone bit, create revision, version), not objects; a key written once costs
 * this object (24 bytes, its reference to the key included) and a 48-byte array. The
 * {@link Version} records callers see are made on each read.
 */
public final class KeyIndex {
  /**
   * One write of the key; {@code rowBytes} is the size of its stored row (the KeyValue as written),
   * 0 where not known (a delete, a row of a gigabyte or more).
   */
  public record Version(Revision revision, boolean tombstone, long createRevision, long version, int rowBytes) {}

  /** Longs per write: main, sub (with its row's size and {@link #TOMBSTONE}), create revision, version. */
  private static final int SLOTS = 4;
  /** Marks a delete in the sub slot. */
  private static final long TOMBSTONE = 1L << 62;
  /**
   * The sub revision's bits in its slot: a sub revision counts a txn's operations, which a request
   * of at most 2 GiB (gRPC's limit) keeps far below 2^32.
   */
  private static final long SUB = 0xFFFF_FFFFL;
  /** The row's size sits above the sub revision, below the tombstone mark: under 2^30 bytes. */
  private static final int ROW_SHIFT = 32;
  private static final long ROW_LIMIT = 1L << 30;
  private static final long[] NONE = new long[0];

  /** The key, never changed: {@link KeyTable} finds a history by it. */
  private final byte[] key;
  /** Writes in revision order, {@value #SLOTS} longs each; replaced only when it grows. */
  private volatile long[] slots;
  /** How many writes {@link #slots} holds; published after them. */
  private volatile int size;

  /** An empty history of {@code key}, which the caller gives up (it is kept, not copied). */
  KeyIndex(byte[] key) {
    this(key, NONE, 0);
  }

  private KeyIndex(byte[] key, long[] slots, int size) {
    this.key = key;
    this.slots = slots;
    this.size = size;
  }

  byte[] key() {
    return key;
  }

  /** A consistent pair read in the order the class doc gives: size, then slots. */
  private View snapshot() {
    int n = size;
    return new View(slots, n);
  }

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  List<Version> versions() {
    return snapshot().from(0);
  }

  /** The newest write at or before store revision {@code atRev}, or null (etcd's keyIndex.get). */
  Version at(long atRev) {
    View v = snapshot();
    int i = v.indexAt(atRev);
    return i < 0 ? null : v.version(i);
  }

  /** The live (not deleted) version visible at {@code atRev}, or null. */
  Version live(long atRev) {
    View v = snapshot();
    int i = v.indexAt(atRev);
    return i < 0 || v.isTombstone(i) ? null : v.version(i);
  }

  /** The writes with main revision at or after {@code rev}, in order (etcd's keyIndex.since). */
  List<Version> since(long rev) {
    View v = snapshot();
    return v.from(v.indexAt(rev - 1) + 1);
  }

  /** Whether {@code rev} is one of this key's writes. */
  boolean contains(Revision rev) {
    View v = snapshot();
    for (int i = v.indexAt(rev.main()); i >= 0 && v.main(i) == rev.main(); i--) {
      if ((v.slots[i * SLOTS + 1] & SUB) == rev.sub()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Compaction at {@code rev} (etcd's rule): keeps every write after {@code rev} and the newest
   * one at or before it, unless that one is a delete (its generation is over: nothing at or after
   * {@code rev} can read it). Returns a new history, possibly empty, or this one if nothing goes;
   * this one is left as it is.
   */
  KeyIndex compact(long rev) {
    View v = snapshot();
    int keep = v.indexAt(rev);
    if (keep < 0) {
      return this;
    }
    int from = v.isTombstone(keep) ? keep + 1 : keep;
    if (from == 0) {
      return this;
    }
    return new KeyIndex(key, Arrays.copyOfRange(v.slots, from * SLOTS, v.size * SLOTS), v.size - from);
  }

  // ---- the single writer ----

  /** A put at {@code rev}: continues the live generation or starts a new one. Returns this. */
  KeyIndex put(Revision rev) {
    long[] s = slots;
    int n = size;
    if (n == 0 || (s[(n - 1) * SLOTS + 1] & TOMBSTONE) != 0) {
      return append(rev, false, rev.main(), 1, 0);
    }
    int last = (n - 1) * SLOTS;
    return append(rev, false, s[last + 2], s[last + 3] + 1, 0);
  }

  /**
   * Records the size of the newest write's row, once it is encoded: before the write's revision is
   * published, so no reader at a committed revision reads the slot while it changes.
   */
  void rowWritten(int rowBytes) {
    int at = (size - 1) * SLOTS + 1;
    slots[at] |= rowBits(rowBytes);
  }

  private static long rowBits(int rowBytes) {
    return rowBytes > 0 && rowBytes < ROW_LIMIT ? (long) rowBytes << ROW_SHIFT : 0;
  }

  /** Whether the latest write is a put: the key is live at the newest revision. Writer's view. */
  boolean liveNow() {
    int n = size;
    return n > 0 && (slots[(n - 1) * SLOTS + 1] & TOMBSTONE) == 0;
  }

  /** A delete at {@code rev}; only valid while the key is live. Returns this. */
  KeyIndex tombstone(Revision rev) {
    int n = size;
    if (n == 0 || (slots[(n - 1) * SLOTS + 1] & TOMBSTONE) != 0) {
      throw new IllegalStateException("deleting a key that is not live");
    }
    return append(rev, true, 0, 0, 0);
  }

  /** Appends a write. Returns this. */
  KeyIndex append(Version v) {
    return append(v.revision(), v.tombstone(), v.createRevision(), v.version(), v.rowBytes());
  }

  /** Appends a write given by its fields ({@code rowBytes} 0: not known). Returns this. */
  KeyIndex append(Revision rev, boolean tombstone, long createRevision, long version, int rowBytes) {
    if (rev.main() <= 0 || rev.sub() < 0 || rev.sub() > SUB) {
      throw new IllegalArgumentException("not a revision of a write: " + rev);
    }
    long[] s = slots;
    int n = size;
    if (n > 0) {
      int last = (n - 1) * SLOTS;
      long lastMain = s[last];
      if (lastMain > rev.main() || lastMain == rev.main() && (s[last + 1] & SUB) >= rev.sub()) {
        throw new IllegalStateException("revisions must increase: " + rev);
      }
    }
    int at = n * SLOTS;
    boolean grow = at >= s.length;
    if (grow) {
      s = Arrays.copyOf(s, (n + (n >> 1) + 1) * SLOTS); // a first write gets room for one
    }
    s[at] = rev.main();
    s[at + 1] = rev.sub() | rowBits(rowBytes) | (tombstone ? TOMBSTONE : 0);
    s[at + 2] = createRevision;
    s[at + 3] = version;
    if (grow) {
      slots = s;
    }
    size = n + 1; // last: publishes the write (see the class doc)
    return this;
  }

  /** The first {@code size} writes of {@code slots}: what a reader works on. */
  private record View(long[] slots, int size) {
    long main(int i) {
      return slots[i * SLOTS];
    }

    boolean isTombstone(int i) {
      return (slots[i * SLOTS + 1] & TOMBSTONE) != 0;
    }

    Version version(int i) {
      int at = i * SLOTS;
      long sub = slots[at + 1];
      return new Version(new Revision(slots[at], sub & SUB), (sub & TOMBSTONE) != 0, slots[at + 2], slots[at + 3],
          (int) ((sub & ~TOMBSTONE) >>> ROW_SHIFT));
    }

    /** Index of the newest write whose main revision is at or before {@code atRev}, or -1. */
    int indexAt(long atRev) {
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

    /** The writes from the {@code first}-th on. */
    List<Version> from(int first) {
      List<Version> out = new ArrayList<>(size - first);
      for (int i = first; i < size; i++) {
        out.add(version(i));
      }
      return List.copyOf(out);
    }
  }
}
