package io.akkaetcd.mvcc;

import io.akkaetcd.errors.EtcdException;
import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.List;

/**
 * The multi-version key-value store (etcd's mvcc.KV), persisted in LevelDB.
 *
 * <p>Threading: the read methods ({@link #range}, the revision getters, {@link #hashKV}) may be
 * called from any thread at any time and never wait for the applier's I/O. Everything that writes
 * ({@link #beginTxn}, {@link #commitBatch}, {@link #setApplied}, {@link #compact}) is confined to
 * one thread at a time: the MVCC applier.
 *
 * <p>Invariants: {@code compactRevision() <= currentRevision()}; readers only ever see revisions
 * of committed batches; the applied raft index is written in the same LevelDB write batch as the
 * revisions it produced, so after a crash nothing is applied twice.
 */
public interface KvStore extends AutoCloseable {

  /** The newest revision visible to readers (etcd's store revision; 1 on an empty store). */
  long currentRevision();

  /** The revision of the last compaction, 0 if never compacted. */
  long compactRevision();

  /** The raft index of the last applied entry, as persisted together with its effects. */
  long appliedIndex();

  /** The raft term of the last applied entry (0 on a store that never recorded one). */
  long appliedTerm();

  /**
   * The applied index that is on disk even if the machine loses power: the Raft log may drop
   * entries up to it. A store whose every batch is durable returns {@link #appliedIndex()}.
   */
  default long durableAppliedIndex() {
    return appliedIndex();
  }

  /**
   * Keys in {@code [key, rangeEnd)} at revision {@code rev} in ascending key order.
   *
   * <p>{@code rangeEnd} empty means the single key {@code key}; {@code rangeEnd == "\0"} means
   * every key {@code >= key} (and with {@code key == "\0"} every key). {@code rev <= 0} means the
   * current revision. {@code limit <= 0} means no limit. {@code countOnly} skips reading values.
   *
   * @throws EtcdException COMPACTED if {@code 0 < rev < compactRevision()},
   *     FUTURE_REV if {@code rev > currentRevision()}
   */
  RangeResult range(ByteString key, ByteString rangeEnd, long rev, long limit, boolean countOnly);

  /**
   * The same range as {@link #range} (without {@code countOnly}) as stored rows, for a response
   * encoded from them without holding the range in memory; {@code keysOnly} drops the values.
   */
  default RangeRows rangeRows(ByteString key, ByteString rangeEnd, long rev, long limit, boolean keysOnly) {
    RangeResult r = range(key, rangeEnd, rev, limit, false);
    return RangeRows.of(r.kvs(), r.count(), keysOnly);
  }

  /**
   * Starts the write transaction of one raft entry. Its reads see every earlier transaction of
   * the current batch and its own writes. Must be ended before the next one begins.
   */
  WriteTxn beginTxn(long raftIndex);

  /**
   * Writes every transaction since the last commit as one LevelDB write batch together with the
   * applied index, then publishes the new revision to readers.
   */
  void commitBatch();

  /**
   * Records the raft entry just applied, whatever it did, by its index and term: written with the
   * batch. The term lets a snapshot of the store name the log entry it ends at.
   */
  void setApplied(long raftIndex, long raftTerm);

  /**
   * Compacts history at {@code rev}: for every key, keeps the newest revision {@code <= rev}
   * unless it is a tombstone, and drops every older one. The compact revision itself is
   * persisted at once; dropping the old revisions may run in the background.
   *
   * @return a handle that completes when the compaction is durable on disk (physical=true).
   * @throws EtcdException COMPACTED if {@code rev} is at or below the last
   *     compaction (pending ones included), FUTURE_REV if {@code rev} is beyond the newest revision
   *     written, the uncommitted batch included (the applier compacts mid-batch, and the answer
   *     must not depend on how entries were batched)
   */
  java.util.concurrent.CompletionStage<Void> compact(long rev);

  /**
   * The events of the revisions in {@code [fromRev, toRev]} (bounded by the current revision), in
   * revision order, each with the key's previous live kv as prev_kv when history still has it.
   *
   * @throws EtcdException COMPACTED if {@code fromRev < compactRevision()}
   */
  List<Event> events(long fromRev, long toRev);

  /** Records a granted lease and its TTL in seconds, written with the current batch. */
  void putLease(long id, long ttlSeconds);

  /**
   * Records a lease with its checkpointed remaining TTL (0: none), written with the current batch:
   * etcd 3.5's lessor persistTo under --experimental-enable-lease-checkpoint-persist.
   */
  void putLeaseCheckpoint(long id, long ttlSeconds, long remainingTtl);

  /** Removes a lease record, written with the current batch. */
  void deleteLease(long id);

  /** Records a raised alarm (its serialized form), written with the current batch. */
  void putAlarm(byte[] record);

  /** Removes an alarm record, written with the current batch. */
  void deleteAlarm(byte[] record);

  /** Every alarm recorded on disk, as recorded (read at start and after a snapshot install). */
  java.util.List<byte[]> alarms();

  /**
   * Writes (or with {@code value == null} deletes) a row of one of etcd's named buckets other
   * than the key space (auth's), with the current batch.
   */
  void putBucketRow(String bucket, ByteString key, ByteString value);

  /** The bucket's rows on disk, in key order (read at start and after a snapshot install). */
  List<BucketRow> bucketRows(String bucket);

  /** Compacts the backend's files down to the data it holds (etcd's defragment); completes when done. */
  default java.util.concurrent.CompletionStage<Void> defragment() {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /** Every lease recorded on disk, id → TTL in seconds (read at start to rebuild the lessor). */
  java.util.Map<Long, Long> leases();

  /** The persisted remaining TTL of every lease recorded with one, id → seconds (read at start). */
  java.util.Map<Long, Long> leaseCheckpoints();

  /** Every live key attached to a lease, key → lease id (read at start to rebuild the lessor). */
  default java.util.Map<ByteString, Long> leasedKeys() {
    java.util.Map<ByteString, Long> out = new java.util.HashMap<>();
    ByteString all = ByteString.copyFrom(new byte[] {0});
    for (io.akkaetcd.proto.mvccpb.KeyValue kv : range(all, all, 0, 0, false).kvs()) {
      if (kv.getLease() != 0) {
        out.put(kv.getKey(), kv.getLease());
      }
    }
    return out;
  }

  /** Hash of every key-value revision in {@code (compactRevision, rev]} (etcd's HashKV). */
  HashResult hashKV(long rev);

  /**
   * The store as it is now, in etcd's backend layout (Maintenance.Snapshot), read without pausing
   * the applier; the caller closes it.
   */
  default Backup backup() {
    throw new UnsupportedOperationException("this store cannot be backed up");
  }

  /** Bytes the backend's files take on disk (etcd's dbSize). */
  long dbSize();

  /**
   * Live keys at the current revision (etcd_debugging_mvcc_keys_total). This default counts them
   * with a count-only range over every key; a store that keeps a running count overrides it.
   */
  default long keysTotal() {
    com.google.protobuf.ByteString all = com.google.protobuf.ByteString.copyFrom(new byte[] {0});
    return range(all, all, 0, 0, true).count();
  }

  /** Bytes of the key-value data the backend holds (etcd's dbSizeInUse; what the quota counts). */
  long dbSizeInUse();

  @Override
  void close();

  /** Result of a range: up to {@code limit} kvs and the total number of keys in range. */
  record RangeResult(List<KeyValue> kvs, long count, long revision) {
    public RangeResult {
      kvs = List.copyOf(kvs);
    }
  }

  /** One row of a named bucket. */
  record BucketRow(String bucket, ByteString key, ByteString value) {}

  /** etcd's HashKV answer. */
  record HashResult(int hash, long compactRevision, long revision) {}

  /** A point-in-time image of the store, readable more than once until closed. */
  interface Backup extends io.akkaetcd.bbolt.EtcdExport, AutoCloseable {
    @Override
    void close();
  }

  /** The writes of one raft entry (a put, a delete or a whole txn), as one revision. */
  interface WriteTxn {
    /** The revision this transaction writes at if it writes anything: current + 1. */
    long revision();

    /** Like {@link KvStore#range} at the latest state, including this txn's own writes. */
    RangeResult range(ByteString key, ByteString rangeEnd, long limit, boolean countOnly);

    /** Puts a key; returns the previous live kv or null. Each write is a new sub-revision. */
    default KeyValue put(ByteString key, ByteString value, long lease) {
      return put(key, value, lease, true);
    }

    /**
     * Puts a key. With {@code withPrev} it returns the previous live kv (or null) and its event
     * carries it as prev_kv; without, it returns null and skips reading the previous value, which
     * is a read of the backend per put that most puts do not need.
     */
    KeyValue put(ByteString key, ByteString value, long lease, boolean withPrev);

    /** Deletes every live key in range (rangeEnd as in range); returns the deleted kvs. */
    List<KeyValue> deleteRange(ByteString key, ByteString rangeEnd);

    /**
     * Ends the transaction. The store revision advances by one if and only if it wrote anything.
     *
     * @return its events in the order the writes happened (empty for a read-only txn)
     */
    List<Event> end();
  }
}
