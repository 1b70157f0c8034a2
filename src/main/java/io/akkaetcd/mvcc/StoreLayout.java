package io.akkaetcd.mvcc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The store's rows in LevelDB, one prefix byte a kind:
 * <ul>
 *   <li>{@code 'r' + revision bytes [+ 't']} → the serialized {@link KeyValue} written at that
 *       revision (a delete stores only key and mod_revision);
 *   <li>{@code 'm' + name} → an 8-byte big-endian meta value (applied index and term, store
 *       revision, finished and scheduled compaction revisions, installed index);
 *   <li>{@code 'l' + lease id} → the lease's TTL in seconds, then its persisted checkpoint's
 *       remaining TTL if it has one (16 bytes);
 *   <li>{@code 'a' + alarm} → nothing: the raised alarms, keyed by their serialized form as
 *       etcd's alarm bucket keys them;
 *   <li>{@code 'u' + bucket + 0 + key} → the row of one of etcd's other buckets (auth's).
 * </ul>
 * The format is what stores on disk and snapshots between members hold: it must not change.
 * Pure functions, any thread.
 */
final class StoreLayout {
  private StoreLayout() {}

  static final byte REV = 'r';
  static final byte LEASE = 'l';
  static final byte ALARM = 'a';
  static final byte BUCKET = 'u';
  static final byte[] META_APPLIED = meta("applied");
  /** The applied index of the snapshot this store was installed from (see {@link IncomingStore#finish}). */
  static final byte[] META_INSTALLED = meta("installed");
  static final byte[] META_APPLIED_TERM = meta("applied-term");
  static final byte[] META_REVISION = meta("revision");
  static final byte[] META_COMPACT_FINISHED = meta("compact-finished");
  static final byte[] META_COMPACT_SCHEDULED = meta("compact-scheduled");

  /** The row key of a revision: {@code 'r'}, the revision's bytes, {@code 't'} for a delete. */
  static byte[] revKey(Revision r, boolean tombstone) {
    byte[] rev = r.toBytes(tombstone);
    byte[] k = new byte[rev.length + 1];
    k[0] = REV;
    System.arraycopy(rev, 0, k, 1, rev.length);
    return k;
  }

  static byte[] leaseKey(long id) {
    return ByteBuffer.allocate(9).put(LEASE).putLong(id).array();
  }

  static long leaseIdOf(byte[] leaseKey) {
    return leaseIdOf(leaseKey, 0);
  }

  /** The lease id of the lease key at {@code offset} of {@code b}. */
  static long leaseIdOf(byte[] b, int offset) {
    return ByteBuffer.wrap(b, offset + 1, 8).getLong();
  }

  static byte[] alarmKey(byte[] record) {
    return ByteBuffer.allocate(record.length + 1).put(ALARM).put(record).array();
  }

  static byte[] bucketKey(String bucket, byte[] key) {
    byte[] name = BucketRows.name(bucket);
    return ByteBuffer.allocate(name.length + key.length + 2).put(BUCKET).put(name).put((byte) 0).put(key).array();
  }

  private static byte[] meta(String name) {
    byte[] n = name.getBytes(StandardCharsets.US_ASCII);
    byte[] k = new byte[n.length + 1];
    k[0] = 'm';
    System.arraycopy(n, 0, k, 1, n.length);
    return k;
  }

  /** An 8-byte value as stored; 0 for a row that is not there. */
  static long longOf(byte[] v) {
    return v == null ? 0 : longOf(v, 0);
  }

  /** The 8-byte value stored at {@code offset} of {@code b}. */
  static long longOf(byte[] b, int offset) {
    return ByteBuffer.wrap(b, offset, 8).getLong();
  }

  static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  /** A revision row's value. */
  static KeyValue parse(byte[] bytes) {
    return parse(bytes, 0, bytes.length);
  }

  /** A revision row's value at {@code offset} of {@code b}. */
  /**
   * A tombstone row's value as etcd stores it, a KeyValue of the deleted key alone: this store's
   * own also holds the deleting revision (ApplyBatch), which etcd adds only to the delete's event.
   */
  static com.google.protobuf.ByteString etcdTombstoneValue(byte[] b, int offset, int length) {
    return KeyValue.newBuilder().setKey(parse(b, offset, length).getKey()).build().toByteString();
  }

  static KeyValue parse(byte[] b, int offset, int length) {
    try {
      return KeyValue.parser().parseFrom(b, offset, length);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt revision in the MVCC store", e);
    }
  }

  /** A revision row as a keys-only Range returns it: the same KeyValue without its value. */
  static byte[] withoutValue(byte[] row) {
    return parse(row).toBuilder().clearValue().build().toByteArray();
  }
}
