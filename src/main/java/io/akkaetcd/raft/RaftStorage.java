package io.akkaetcd.raft;

import java.util.List;

/**
 * The read side of the durable log, as the core sees it. Everything here has been persisted by
 * the driver; the core never writes it.
 */
public interface RaftStorage {
  HardState hardState();

  /** Index of the first entry available; entries before it were compacted away. */
  long firstIndex();

  long lastIndex();

  /** The term of the entry at {@code index}; {@code firstIndex() - 1} gives the compaction point's term. */
  long term(long index);

  /** Entries in {@code [lo, hi)}, at least one if any, at most about {@code maxBytes}. */
  List<Entry> entries(long lo, long hi, long maxBytes);
}
