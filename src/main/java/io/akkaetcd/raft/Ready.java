package io.akkaetcd.raft;

import java.util.List;

/**
 * What the core asks its driver to do, in this order: persist {@code snapshot} (if not null: the
 * log now starts after that point, nothing before it is kept), {@code hardState} (if not null) and
 * {@code entries}; then send {@code messages}; then apply {@code committedEntries} in order and
 * answer {@code readStates}; then call {@link RaftCore#advance}. Immutable.
 */
public record Ready(SnapshotPoint snapshot, SoftState softState, HardState hardState, List<Entry> entries,
                    List<Message> messages, List<Entry> committedEntries, List<ReadState> readStates) {
  public Ready {
    entries = List.copyOf(entries);
    messages = List.copyOf(messages);
    committedEntries = List.copyOf(committedEntries);
    readStates = List.copyOf(readStates);
  }
}
