package io.akkaetcd.raft;

import java.util.ArrayList;
import java.util.List;

/**
 * The log as the core sees it: the persisted entries in {@link RaftStorage} followed by the
 * unstable ones not yet handed out for persisting.
 *
 * <p>Invariants: {@code applied <= committed <= lastIndex()}; unstable entries start at
 * {@code unstableOffset} and are contiguous with storage (or replace a suffix of it), or, after a
 * snapshot was installed and until it is persisted, with that snapshot's point: storage is then
 * stale and is not read.
 */
final class RaftLog {
  private final RaftStorage storage;
  private final List<Entry> unstable = new ArrayList<>();
  private long unstableOffset;
  long committed;
  long applied;
  /** A snapshot point the log was restored to that the driver has not persisted yet. */
  private SnapshotPoint pendingSnapshot;

  RaftLog(RaftStorage storage, long applied) {
    this.storage = storage;
    this.unstableOffset = storage.lastIndex() + 1;
    this.committed = storage.hardState().commit();
    this.applied = Math.max(applied, storage.firstIndex() - 1);
    if (this.applied > committed) {
      // The commit index is not written synchronously (JournalCodec.mustPersist), so the state
      // machine may be ahead of the recorded commit: whatever was applied was committed.
      if (this.applied > lastIndex()) {
        throw new IllegalStateException("the state machine applied index " + this.applied
            + " is beyond the last log index " + lastIndex() + ": the log lost entries");
      }
      this.committed = this.applied;
    }
  }

  long lastIndex() {
    if (!unstable.isEmpty()) {
      return unstableOffset + unstable.size() - 1;
    }
    return pendingSnapshot != null ? pendingSnapshot.index() : storage.lastIndex();
  }

  long firstIndex() {
    return pendingSnapshot != null ? pendingSnapshot.index() + 1 : storage.firstIndex();
  }

  long lastTerm() {
    return term(lastIndex());
  }

  /** The term at {@code index}, or 0 if the log has no such entry (beyond the end or compacted). */
  long term(long index) {
    if (!unstable.isEmpty() && index >= unstableOffset) {
      return index <= lastIndex() ? unstable.get((int) (index - unstableOffset)).term() : 0;
    }
    if (pendingSnapshot != null) {
      return index == pendingSnapshot.index() ? pendingSnapshot.term() : 0;
    }
    if (index < storage.firstIndex() - 1 || index > storage.lastIndex()) {
      return 0;
    }
    return storage.term(index);
  }

  boolean matchTerm(long index, long term) {
    return term(index) == term && (index == 0 || term != 0 || index <= firstIndex() - 1);
  }

  /** Raft §5.4.1: is a log ending at (index, term) at least as up to date as ours? */
  boolean isUpToDate(long index, long term) {
    return term > lastTerm() || (term == lastTerm() && index >= lastIndex());
  }

  /** Appends new entries after truncating any conflicting suffix; returns the new last index. */
  long append(List<Entry> entries) {
    if (entries.isEmpty()) {
      return lastIndex();
    }
    long first = entries.get(0).index();
    if (first <= committed) {
      throw new IllegalStateException("entry " + first + " would overwrite committed " + committed);
    }
    if (first == unstableOffset + unstable.size()) {
      unstable.addAll(entries);
    } else if (first <= unstableOffset) {
      // Replaces persisted entries too: the new ones will be persisted over them.
      unstableOffset = first;
      unstable.clear();
      unstable.addAll(entries);
    } else {
      unstable.subList((int) (first - unstableOffset), unstable.size()).clear();
      unstable.addAll(entries);
    }
    return lastIndex();
  }

  /**
   * A follower's append (Raft §5.3): if our log has (prevIndex, prevTerm), keeps what matches,
   * replaces from the first conflict, and returns the index of the last new entry; -1 otherwise.
   */
  long maybeAppend(long prevIndex, long prevTerm, long leaderCommit, List<Entry> entries) {
    if (!matchTerm(prevIndex, prevTerm)) {
      return -1;
    }
    long lastNew = prevIndex + entries.size();
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      if (term(e.index()) != e.term()) {
        append(entries.subList(i, entries.size()));
        break;
      }
    }
    commitTo(Math.min(leaderCommit, lastNew));
    return lastNew;
  }

  void commitTo(long index) {
    if (index > committed) {
      if (index > lastIndex()) {
        throw new IllegalStateException("commit " + index + " beyond last index " + lastIndex());
      }
      committed = index;
    }
  }

  /**
   * Starts the log over after a snapshot (Raft §7): everything up to its point is committed and
   * applied (the driver installed the state machine), nothing before it is kept.
   */
  void restore(SnapshotPoint point) {
    committed = point.index();
    applied = point.index();
    unstable.clear();
    unstableOffset = point.index() + 1;
    pendingSnapshot = point;
  }

  SnapshotPoint pendingSnapshot() {
    return pendingSnapshot;
  }

  /** The driver persisted {@code point}: storage starts there now. */
  void snapshotStable(SnapshotPoint point) {
    if (point.equals(pendingSnapshot)) {
      pendingSnapshot = null;
    }
  }

  boolean hasUnstable() {
    return !unstable.isEmpty();
  }

  /**
   * The last index at or below {@code index} whose term is at most {@code term} (or the
   * compaction point). Every entry of ours above it, up to {@code index}, has a higher term, so
   * none can match a log whose entry at {@code index} has {@code term}: terms never decrease
   * along a log (Raft §5.3, the optimization at its end).
   */
  long findConflictByTerm(long index, long term) {
    long i = Math.min(index, lastIndex());
    while (i > firstIndex() - 1 && term(i) > term) {
      i--;
    }
    return i;
  }

  List<Entry> unstableEntries() {
    return List.copyOf(unstable);
  }

  /** The unstable entries up to (index, term) are now persisted. */
  void stableTo(long index, long term) {
    if (index < unstableOffset || term(index) != term) {
      return; // replaced meanwhile
    }
    unstable.subList(0, (int) (index - unstableOffset + 1)).clear();
    unstableOffset = index + 1;
  }

  boolean hasNextCommitted() {
    return committed > applied;
  }

  List<Entry> nextCommitted(long maxBytes) {
    return hasNextCommitted() ? slice(applied + 1, committed + 1, maxBytes) : List.of();
  }

  void appliedTo(long index) {
    if (index > committed || index < applied) {
      throw new IllegalStateException("applied " + index + " outside [" + applied + ", " + committed + "]");
    }
    applied = index;
  }

  /** Entries in [lo, hi), from storage and then the unstable part, at most about maxBytes. */
  List<Entry> slice(long lo, long hi, long maxBytes) {
    List<Entry> out = new ArrayList<>();
    if (lo < unstableOffset) {
      out.addAll(storage.entries(lo, Math.min(hi, unstableOffset), maxBytes));
    }
    long bytes = out.stream().mapToLong(Entry::size).sum();
    for (long i = Math.max(lo, unstableOffset); i < hi && (out.isEmpty() || bytes <= maxBytes); i++) {
      if (out.size() < (int) (i - lo)) {
        break; // storage stopped early on size
      }
      Entry e = unstable.get((int) (i - unstableOffset));
      bytes += e.size();
      if (!out.isEmpty() && bytes > maxBytes) {
        break;
      }
      out.add(e);
    }
    return out;
  }
}
