package io.akkaetcd.raft;

/**
 * The last entry a state-machine snapshot covers (Raft §7's lastIncludedIndex and
 * lastIncludedTerm): a log restored from the snapshot starts right after it.
 */
public record SnapshotPoint(long index, long term) {}
