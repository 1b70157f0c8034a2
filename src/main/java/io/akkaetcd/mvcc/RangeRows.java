package io.akkaetcd.mvcc;

import com.google.protobuf.CodedOutputStream;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.List;

/**
 * The live keys of a range at one revision as their stored rows (each a {@link KeyValue} in
 * protobuf's bytes), handed out in key order a chunk at a time, so a response can be encoded from
 * them without holding the range in memory (etcd #12342). The sizes are known before the first
 * chunk is read, as a length-prefixed message needs. One reader at a time.
 */
public interface RangeRows {
  /** The live keys in the range (all of them, not only the rows held up to the limit). */
  long count();

  /** How many rows {@link #next} hands out in all. */
  int size();

  /**
   * The bytes of every row {@link #next} hands out, each with its length before it as a varint
   * (protobuf's delimited form): what the rows take in a message's repeated field, but the tags.
   */
  long delimitedBytes();

  /** The next rows in key order, about a chunk's worth; empty once all were handed out. */
  List<byte[]> next();

  /** Rows already in memory, e.g. from {@link KvStore#range}. */
  static RangeRows of(List<KeyValue> kvs, long count, boolean keysOnly) {
    List<byte[]> rows = kvs.stream().map(kv -> (keysOnly ? kv.toBuilder().clearValue().build() : kv).toByteArray())
        .toList();
    long bytes = rows.stream().mapToLong(r -> CodedOutputStream.computeUInt32SizeNoTag(r.length) + r.length).sum();
    return new RangeRows() {
      private boolean handedOut;

      @Override
      public long count() {
        return count;
      }

      @Override
      public int size() {
        return rows.size();
      }

      @Override
      public long delimitedBytes() {
        return bytes;
      }

      @Override
      public List<byte[]> next() {
        List<byte[]> out = handedOut ? List.of() : rows;
        handedOut = true;
        return out;
      }
    };
  }
}
