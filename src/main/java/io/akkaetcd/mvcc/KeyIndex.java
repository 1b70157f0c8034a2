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
 */
public final class KeyIndex {
  /** One write of the key. */
  public record Version(Revision revision, boolean tombstone, long createRevision, long version) {}

  static final KeyIndex EMPTY = new KeyIndex(new Version[0], 0);

  private final Version[] versions;
  private final int size;

  private KeyIndex(Version[] versions, int size) {
    this.versions = versions;
    this.size = size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  List<Version> versions() {
    return List.of(Arrays.copyOf(versions, size));
  }

  /** Index of the newest write whose main revision is at or before {@code atRev}, or -1. */
  private int indexAt(long atRev) {
    int lo = 0;
    int hi = size - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (versions[mid].revision().main() <= atRev) {
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
    return i < 0 ? null : versions[i];
  }

  /** The live (not deleted) version visible at {@code atRev}, or null. */
  Version live(long atRev) {
    Version v = at(atRev);
    return v == null || v.tombstone() ? null : v;
  }

  /** The newest write, or null. */
  Version last() {
    return size == 0 ? null : versions[size - 1];
  }

  /** The writes with main revision at or after {@code rev}, in order (etcd's keyIndex.since). */
  List<Version> since(long rev) {
    int from = indexAt(rev - 1) + 1;
    return List.of(Arrays.copyOfRange(versions, from, size));
  }

  /** A put at {@code rev}: continues the live generation or starts a new one. */
  KeyIndex put(Revision rev) {
    Version last = last();
    Version v = last == null || last.tombstone()
        ? new Version(rev, false, rev.main(), 1)
        : new Version(rev, false, last.createRevision(), last.version() + 1);
    return append(v);
  }

  /** A delete at {@code rev}; only valid while the key is live. */
  KeyIndex tombstone(Revision rev) {
    Version last = last();
    if (last == null || last.tombstone()) {
      throw new IllegalStateException("deleting a key that is not live");
    }
    return append(new Version(rev, true, 0, 0));
  }

  /** Appends a write; only the single writer may call this (see the class doc). */
  KeyIndex append(Version v) {
    Version last = last();
    if (last != null && last.revision().compareTo(v.revision()) >= 0) {
      throw new IllegalStateException("revisions must increase: " + v.revision());
    }
    if (size < versions.length && versions[size] == null) {
      versions[size] = v;
      return new KeyIndex(versions, size + 1);
    }
    Version[] next = Arrays.copyOf(versions, Math.max(2, size + (size >> 1) + 1));
    next[size] = v;
    return new KeyIndex(next, size + 1);
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
    int from = versions[keep].tombstone() ? keep + 1 : keep;
    if (from == 0) {
      return this;
    }
    List<Version> out = new ArrayList<>(size - from);
    for (int i = from; i < size; i++) {
      out.add(versions[i]);
    }
    Version[] next = out.toArray(new Version[0]);
    return new KeyIndex(next, next.length);
  }

  /** Whether {@code rev} is one of this key's writes. */
  boolean contains(Revision rev) {
    int i = indexAt(rev.main());
    for (; i >= 0 && versions[i].revision().main() == rev.main(); i--) {
      if (versions[i].revision().equals(rev)) {
        return true;
      }
    }
    return false;
  }
}
