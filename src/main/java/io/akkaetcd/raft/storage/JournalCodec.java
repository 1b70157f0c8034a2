package io.akkaetcd.raft.storage;

import io.akkaetcd.raft.SnapshotPoint;
import io.akkaetcd.proto.raftpb.LogAppended;
import io.akkaetcd.raft.Entry;
import io.akkaetcd.raft.EntryType;
import io.akkaetcd.raft.HardState;
import io.akkaetcd.raft.MemoryStorage;
import io.akkaetcd.raft.Ready;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps what a {@link Ready} asks to persist to the one journal event that holds it, and a replayed
 * event back into the in-memory log. One event = one journal write = one fsync.
 */
public final class JournalCodec {
  private JournalCodec() {}

  /**
   * Whether a Ready must be written (and fsynced) before it is acted on: new entries, or a new term
   * or vote (etcd raft's MustSync). A Ready that only moves the commit index is not written: the
   * commit index need not be durable, since a restarted member treats everything its state machine
   * applied as committed (RaftLog takes max(commit, applied)). This halves the fsyncs of a lone
   * member, whose every entry is first appended and then, one Ready later, committed.
   */
  public static boolean mustPersist(Ready rd, HardState persisted) {
    HardState hs = rd.hardState();
    return rd.snapshot() != null
        || !rd.entries().isEmpty()
        || (hs != null && (hs.term() != persisted.term() || hs.vote() != persisted.vote()));
  }

  /**
   * The event for a Ready; the log starts over after {@code restart} first if it is not null (the
   * Ready's snapshot, or the state machine's point found ahead of the log at recovery).
   */
  public static LogAppended toEvent(Ready rd, SnapshotPoint restart) {
    LogAppended.Builder b = LogAppended.newBuilder();
    if (restart != null) {
      b.setHasRestart(true).setRestartIndex(restart.index()).setRestartTerm(restart.term());
    }
    for (Entry e : rd.entries()) {
      b.addEntries(toProto(e));
    }
    HardState hs = rd.hardState();
    if (hs != null) {
      b.setHasHardState(true).setHardState(toProto(hs));
    }
    return b.build();
  }

  /** Applies a persisted event to the in-memory log: a restart first, then entries, then the hard state. */
  public static void applyTo(LogAppended ev, MemoryStorage storage) {
    if (ev.getHasRestart()) {
      storage.resetTo(ev.getRestartIndex(), ev.getRestartTerm());
    }
    if (ev.getEntriesCount() > 0) {
      storage.append(fromProto(ev.getEntriesList()));
    }
    if (ev.getHasHardState()) {
      storage.setHardState(fromProto(ev.getHardState()));
    }
  }

  /** The whole in-memory log as a snapshot: hard state, compaction point, the entries after it. */
  public static io.akkaetcd.proto.raftpb.LogSnapshot toSnapshot(MemoryStorage storage) {
    io.akkaetcd.proto.raftpb.LogSnapshot.Builder b = io.akkaetcd.proto.raftpb.LogSnapshot.newBuilder()
        .setHardState(toProto(storage.hardState()))
        .setCompactedIndex(storage.firstIndex() - 1)
        .setCompactedTerm(storage.compactedTerm());
    if (storage.lastIndex() >= storage.firstIndex()) {
      for (Entry e : storage.entries(storage.firstIndex(), storage.lastIndex() + 1, Long.MAX_VALUE)) {
        b.addEntries(toProto(e));
      }
    }
    return b.build();
  }

  /** Rebuilds a log from a snapshot. */
  public static void restore(io.akkaetcd.proto.raftpb.LogSnapshot snap, MemoryStorage storage) {
    storage.resetTo(snap.getCompactedIndex(), snap.getCompactedTerm());
    storage.append(fromProto(snap.getEntriesList()));
    storage.setHardState(fromProto(snap.getHardState()));
  }

  /** An entry as the journal and the peer wire carry it. */
  public static io.akkaetcd.proto.raftpb.Entry toProto(Entry e) {
    return io.akkaetcd.proto.raftpb.Entry.newBuilder()
        .setTerm(e.term()).setIndex(e.index())
        .setType(e.type() == EntryType.CONF_CHANGE
            ? io.akkaetcd.proto.raftpb.EntryType.ENTRY_CONF_CHANGE
            : io.akkaetcd.proto.raftpb.EntryType.ENTRY_NORMAL)
        .setData(e.data())
        .build();
  }

  private static io.akkaetcd.proto.raftpb.HardState toProto(HardState hs) {
    return io.akkaetcd.proto.raftpb.HardState.newBuilder()
        .setTerm(hs.term()).setVote(hs.vote()).setCommit(hs.commit()).build();
  }

  private static HardState fromProto(io.akkaetcd.proto.raftpb.HardState hs) {
    return new HardState(hs.getTerm(), hs.getVote(), hs.getCommit());
  }

  /** Entries from the journal or the peer wire. */
  public static List<Entry> fromProto(List<io.akkaetcd.proto.raftpb.Entry> protos) {
    List<Entry> entries = new ArrayList<>(protos.size());
    for (io.akkaetcd.proto.raftpb.Entry e : protos) {
      entries.add(fromProto(e));
    }
    return entries;
  }

  private static Entry fromProto(io.akkaetcd.proto.raftpb.Entry e) {
    return new Entry(e.getTerm(), e.getIndex(),
        e.getType() == io.akkaetcd.proto.raftpb.EntryType.ENTRY_CONF_CHANGE ? EntryType.CONF_CHANGE : EntryType.NORMAL,
        e.getData());
  }
}
