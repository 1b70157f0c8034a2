package io.akkaetcd.raft;

import com.google.protobuf.ByteString;

/** One log entry. Immutable; {@code data} is empty for the no-op a new leader appends (Raft §8). */
public record Entry(long term, long index, EntryType type, ByteString data) {
  public static Entry normal(long term, long index, ByteString data) {
    return new Entry(term, index, EntryType.NORMAL, data);
  }

  long size() {
    return data.size() + 24L;
  }
}
