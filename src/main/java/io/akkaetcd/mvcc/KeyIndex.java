package io.akkaetcd.mvcc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The history of one key (etcd's keyIndex): every revision that wrote it, in order, each with
 * whether it was a delete and the create revision and version the key had then. A delete ends a
 * generation; the next put starts a new one at version 1.
 *
 * <p>Immutable: a change returns a new KeyIndex, so readers on other threads always see a whole
 * history. Invariant: revisions strictly increase.
 */
public final class KeyIndex {
  /** One write of the key. */
  public record Version(Revision revision, boolean tombstone, long createRevision, long version) {}

  static final KeyIndex EMPTY = new KeyIndex(new Version[0]);

  private final Version[] versions;

  private KeyIndex(Version[] versions) {
    this.versions = versions;
  }

  boolean isEmpty() {
    return versions.length == 0;
  }

  List<Version> versions() {
    return List.of(versions);
  }

  /** The newest write at or before store revision {@code atRev}, or null. */
  Version at(long atRev) {
    int lo = 0;
    int hi = versions.length - 1;
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
    return found < 0 ? null : versions[found];
  }

  /** The live (not deleted) version visible at {@code atRev}, or null. */
  Version live(long atRev) {
    Version v = at(atRev);
    return v == null || v.tombstone() ? null : v;
  }

  /** A put at {@code rev}: continues the live generation or starts a new one. */
  KeyIndex put(Revision rev) {
    Version last = versions.length == 0 ? null : versions[versions.length - 1];
    Version v = last == null || last.tombstone()
        ? new Version(rev, false, rev.main(), 1)
        : new Version(rev, false, last.createRevision(), last.version() + 1);
    return append(v);
  }

  /** A delete at {@code rev}; only valid while the key is live. */
  KeyIndex tombstone(Revision rev) {
    Version last = versions[versions.length - 1];
    if (last.tombstone()) {
      throw new IllegalStateException("deleting a deleted key");
    }
    return append(new Version(rev, true, 0, 0));
  }

  KeyIndex append(Version v) {
    if (versions.length > 0 && versions[versions.length - 1].revision().compareTo(v.revision()) >= 0) {
      throw new IllegalStateException("revisions must increase: " + v.revision());
    }
    Version[] next = Arrays.copyOf(versions, versions.length + 1);
    next[versions.length] = v;
    return new KeyIndex(next);
  }

  /**
   * Compaction at {@code rev} (etcd's rule): keeps every write after {@code rev} and the newest
   * one at or before it, unless that one is a delete. May return an empty index.
   */
  KeyIndex compact(long rev) {
    Version keep = at(rev);
    List<Version> out = new ArrayList<>();
    for (Version v : versions) {
      if (v.revision().main() > rev || (v == keep && !v.tombstone())) {
        out.add(v);
      }
    }
    return out.size() == versions.length ? this : new KeyIndex(out.toArray(new Version[0]));
  }

  boolean contains(Revision rev) {
    for (Version v : versions) {
      if (v.revision().equals(rev)) {
        return true;
      }
    }
    return false;
  }
}
