package io.akkaetcd.raft;

import java.util.ArrayList;
import java.util.List;

/**
 * The durable log held in memory: filled by journal replay at start and by the driver after each
 * persist. Confined to the one actor that drives the core.
 *
 * <p>Invariant: {@code entries.get(0)} is a dummy standing for the compaction point (its index
 * and term), so {@code firstIndex() == entries.get(0).index() + 1} and indexes are contiguous.
 */
public final class MemoryStorage implements RaftStorage {
  private final List<Entry> entries = new ArrayList<>(List.of(Entry.normal(0, 0, com.google.protobuf.ByteString.EMPTY)));
  private HardState hardState = HardState.EMPTY;

  @Override
  public HardState hardState() {
    return hardState;
  }

  public void setHardState(HardState hs) {
    this.hardState = hs;
  }

  /** The term a new cluster's members start at: etcd's bootstrap writes its configuration at term 1. */
  public static final long BOOTSTRAP_TERM = 1;

  /**
   * Starts a log that holds no term and no entry (past its snapshot point, if any: a restored
   * store's) at {@link #BOOTSTRAP_TERM} or the point's term, as etcd's raft Bootstrap leaves a new
   * cluster's member, so the first election is at term 2, as in etcd. A log that holds anything is
   * left alone: a restart never moves the term.
   */
  public void bootstrap() {
    if (hardState.term() == 0 && lastIndex() == offset()) {
      hardState = new HardState(Math.max(BOOTSTRAP_TERM, compactedTerm()), 0, hardState.commit());
    }
  }

  private long offset() {
    return entries.get(0).index();
  }

  @Override
  public long firstIndex() {
    return offset() + 1;
  }

  @Override
  public long lastIndex() {
    return offset() + entries.size() - 1;
  }

  @Override
  public long term(long index) {
    if (index < offset() || index > lastIndex()) {
      throw new IndexOutOfBoundsException("term of " + index + " not in [" + offset() + ", " + lastIndex() + "]");
    }
    return entries.get((int) (index - offset())).term();
  }

  @Override
  public List<Entry> entries(long lo, long hi, long maxBytes) {
    if (lo <= offset() || hi > lastIndex() + 1) {
      throw new IndexOutOfBoundsException("entries [" + lo + ", " + hi + ") not in the log");
    }
    List<Entry> out = new ArrayList<>();
    long bytes = 0;
    for (long i = lo; i < hi; i++) {
      Entry e = entries.get((int) (i - offset()));
      bytes += e.size();
      if (!out.isEmpty() && bytes > maxBytes) {
        break;
      }
      out.add(e);
    }
    return out;
  }

  /** Appends entries, first dropping any existing suffix they replace (Raft §5.3). */
  public void append(List<Entry> newEntries) {
    if (newEntries.isEmpty()) {
      return;
    }
    long first = newEntries.get(0).index();
    if (first + newEntries.size() - 1 <= offset()) {
      return; // all already compacted
    }
    List<Entry> toAdd = newEntries;
    if (first <= offset()) {
      toAdd = newEntries.subList((int) (offset() + 1 - first), newEntries.size());
      first = offset() + 1;
    }
    if (first > lastIndex() + 1) {
      throw new IllegalArgumentException("gap: appending " + first + " after " + lastIndex());
    }
    int keep = (int) (first - offset());
    entries.subList(keep, entries.size()).clear();
    entries.addAll(toAdd);
  }

  /** Starts over from a compaction point (a snapshot's): no entries, the point as the dummy. */
  public void resetTo(long index, long term) {
    entries.clear();
    entries.add(Entry.normal(term, index, com.google.protobuf.ByteString.EMPTY));
  }

  /** The compaction point's term: the term of the entry just before {@link #firstIndex()}. */
  public long compactedTerm() {
    return entries.get(0).term();
  }

  /** Drops the entries up to and including {@code index}, which must be applied already. */
  public void compact(long index) {
    if (index <= offset()) {
      return;
    }
    if (index > lastIndex()) {
      throw new IllegalArgumentException("compact " + index + " beyond last " + lastIndex());
    }
    Entry point = entries.get((int) (index - offset()));
    entries.subList(0, (int) (index - offset()) + 1).clear();
    entries.add(0, Entry.normal(point.term(), point.index(), com.google.protobuf.ByteString.EMPTY));
  }
}
