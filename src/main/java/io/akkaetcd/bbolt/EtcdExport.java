package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * What an etcd-layout snapshot holds, as an exporter of the store supplies it. The streaming parts
 * ({@link #revisions}, {@link #leases}) may be called more than once and must push the same
 * content each time (read them from one store snapshot).
 */
public interface EtcdExport {
  /** Every stored revision in ascending (main, sub) order: puts and deletions' tombstones. */
  void revisions(Sink<Revision> sink) throws IOException;

  /**
   * What {@link #revisions} pushes, as sizes only, in the same order: whether each row is a
   * tombstone and its value's length (the writer's layout pass needs no more). An exporter that can
   * skip reading the values overrides it.
   */
  default void revisionSizes(SizeSink sink) throws IOException {
    revisions(r -> sink.accept(r.tombstone(), r.value().size()));
  }

  @FunctionalInterface
  interface SizeSink {
    void accept(boolean tombstone, int valueSize) throws IOException;
  }

  /** Every lease in ascending id order. */
  void leases(Sink<Lease> sink) throws IOException;

  /** The applied raft index etcd stores as "consistent_index". */
  long consistentIndex();

  /** The last finished compaction's revision; 0 for none. */
  long finishedCompactRevision();

  /** The last scheduled compaction's revision; 0 for none. */
  long scheduledCompactRevision();

  /**
   * Rows of the small buckets, already in etcd's bytes: "members", "members_removed", "cluster",
   * "alarm", "auth", "authUsers", "authRoles" (any order; held in memory).
   */
  List<Row> rows() throws IOException;

  @FunctionalInterface
  interface Sink<T> {
    void accept(T item) throws IOException;
  }

  /**
   * One "key" bucket row: its serialized mvccpb.KeyValue, passed through as stored (a tombstone's
   * holds only the key, as etcd writes it).
   */
  record Revision(long main, long sub, boolean tombstone, ByteString value) {
    public Revision {
      Objects.requireNonNull(value, "value");
    }

    public Revision(long main, long sub, boolean tombstone, KeyValue kv) {
      this(main, sub, tombstone, kv.toByteString());
    }

    public KeyValue keyValue() throws IOException {
      return KeyValue.parseFrom(value);
    }
  }

  record Lease(long id, long ttl) {}

  record Row(String bucket, ByteString key, ByteString value) {
    public Row {
      Objects.requireNonNull(bucket, "bucket");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }
  }
}
