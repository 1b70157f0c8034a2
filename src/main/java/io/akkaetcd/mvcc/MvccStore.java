package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import org.iq80.leveldb.ReadOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MVCC store on LevelDB (see {@link KvStore} for the contract): the facade the server uses,
 * which opens the store, wires its parts and replaces it with a snapshot from another member.
 *
 * <p>The parts, each with its own invariants: the rows' layout ({@link StoreLayout}) in LevelDB
 * ({@link Backend}); the key index and the revisions readers may see ({@link KvIndex}), read back
 * at open ({@link IndexRebuild}); committed reads ({@link KvReads}); the applier's batch of write
 * transactions ({@link ApplyBatch}); compaction ({@link Compaction}); the hash ({@link KvHash});
 * the lease and alarm records ({@link LeaseRows}, {@link AlarmRows}); export ({@link StoreExport})
 * and install ({@link IncomingStore}, {@link StoreDirs}) of the whole store.
 *
 * <p>Threads: reads from any thread; writes, compaction, export and install from the applier's.
 */
public final class MvccStore implements KvStore {
  private static final Logger log = LoggerFactory.getLogger(MvccStore.class);

  private final Backend backend;
  private final KvIndex index = new KvIndex();
  private final KvReads reads;
  private final ApplyBatch batch;
  private final Compaction compaction;
  private final KvHash hash;
  private final LeaseRows leases;
  private final AlarmRows alarms;
  private final BucketRows buckets;
  private volatile long installedIndex;
  /** Live keys with a lease, gathered by the scan at open; handed out once, to the lessor. */
  private Map<ByteString, Long> leasedAtOpen;
  private boolean closing; // guarded by this

  private MvccStore(Backend backend) {
    this.backend = backend;
    this.reads = new KvReads(index, backend);
    this.batch = new ApplyBatch(index, backend, reads);
    this.compaction = new Compaction(index, backend, batch);
    this.hash = new KvHash(index, backend);
    this.leases = new LeaseRows(backend, batch);
    this.alarms = new AlarmRows(backend, batch);
    this.buckets = new BucketRows(backend, batch);
  }

  public static MvccStore open(Path dir) {
    try {
      StoreDirs.finishInterruptedInstall(dir);
      Files.createDirectories(dir);
      MvccStore store = new MvccStore(Backend.open(dir));
      store.recover();
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the MVCC store in " + dir, e);
    }
  }

  /** Tells {@code timer} how long each batch commit's LevelDB write took (etcd's backend commit). */
  public void timeCommits(java.util.function.LongConsumer timer) {
    batch.timeCommits(timer);
  }

  /** Tells {@code observer} how long each compaction's parts take from now on. */
  public void observeCompactions(CompactionObserver observer) {
    compaction.observe(observer);
  }

  /** Rebuilds the key index from disk and resumes an unfinished compaction. */
  private void recover() {
    long revision = Math.max(1, backend.meta(StoreLayout.META_REVISION));
    long finished = backend.meta(StoreLayout.META_COMPACT_FINISHED);
    long scheduled = backend.meta(StoreLayout.META_COMPACT_SCHEDULED);
    LongAdder bytes = new LongAdder();
    IndexRebuild rebuilt = IndexRebuild.read(backend, revision, Math.max(finished, scheduled), bytes);
    backend.rowBytes().set(bytes.sum());
    leasedAtOpen = rebuilt.leased();
    index.load(rebuilt);
    index.publishRevision(revision);
    installedIndex = backend.meta(StoreLayout.META_INSTALLED);
    batch.recovered(revision, backend.meta(StoreLayout.META_APPLIED), backend.meta(StoreLayout.META_APPLIED_TERM));
    compaction.resume(finished, scheduled);
    log.info("opened MVCC store {}: revision {}, compacted {}, applied index {}, {} revisions",
        backend.dir(), revision, index.compactRevision(), batch.appliedIndex(), rebuilt.rows());
  }

  // ---- reads ----

  @Override
  public long currentRevision() {
    return index.currentRevision();
  }

  @Override
  public long compactRevision() {
    return index.compactRevision();
  }

  /** A running count kept by the applier: O(1). */
  @Override
  public long keysTotal() {
    return index.liveKeys();
  }

  @Override
  public long appliedIndex() {
    return batch.appliedIndex();
  }

  @Override
  public long appliedTerm() {
    return batch.appliedTerm();
  }

  /**
   * The index of the last snapshot from a leader that replaced this store, 0 if none did: a
   * store that applied further than its journal holds is explained by such an install only if it
   * applied nothing since.
   */
  public long installedIndex() {
    return installedIndex;
  }

  /** At start, from the scan that rebuilt the index; later (not used so) by reading every key. */
  @Override
  public synchronized Map<ByteString, Long> leasedKeys() {
    Map<ByteString, Long> m = leasedAtOpen;
    if (m != null) {
      leasedAtOpen = null;
      return m;
    }
    return KvStore.super.leasedKeys();
  }

  @Override
  public long durableAppliedIndex() {
    return batch.durableAppliedIndex();
  }

  @Override
  public RangeResult range(ByteString key, ByteString rangeEnd, long rev, long limit, boolean countOnly) {
    return reads.range(key, rangeEnd, rev, limit, countOnly);
  }

  @Override
  public RangeRows rangeRows(ByteString key, ByteString rangeEnd, long rev, long limit, boolean keysOnly) {
    return reads.rangeRows(key, rangeEnd, rev, limit, keysOnly);
  }

  @Override
  public List<Event> events(long fromRev, long toRev) {
    return reads.events(fromRev, toRev);
  }

  @Override
  public HashResult hashKV(long rev) {
    return hash.hash(rev);
  }

  @Override
  public Map<Long, Long> leases() {
    return leases.read();
  }

  @Override
  public Map<Long, Long> leaseCheckpoints() {
    return leases.readCheckpoints();
  }

  @Override
  public List<byte[]> alarms() {
    return alarms.read();
  }

  // ---- writes (applier-confined) ----

  @Override
  public WriteTxn beginTxn(long raftIndex) {
    return batch.beginTxn(raftIndex);
  }

  @Override
  public void setApplied(long raftIndex, long raftTerm) {
    batch.setApplied(raftIndex, raftTerm);
  }

  /** Writes the batch (see {@link ApplyBatch#commit}), then starts a compaction that waited for it. */
  @Override
  public void commitBatch() {
    batch.commit();
    compaction.afterCommit();
  }

  @Override
  public void putLease(long id, long ttlSeconds) {
    leases.put(id, ttlSeconds);
  }

  @Override
  public void putLeaseCheckpoint(long id, long ttlSeconds, long remainingTtl) {
    leases.put(id, ttlSeconds, remainingTtl);
  }

  @Override
  public void deleteLease(long id) {
    leases.delete(id);
  }

  @Override
  public void putAlarm(byte[] record) {
    alarms.put(record);
  }

  @Override
  public void deleteAlarm(byte[] record) {
    alarms.delete(record);
  }

  @Override
  public void putBucketRow(String bucket, ByteString key, ByteString value) {
    buckets.put(bucket, key, value);
  }

  @Override
  public List<BucketRow> bucketRows(String bucket) {
    return buckets.read(bucket);
  }

  /** See {@link Compaction#compact}. */
  @Override
  public CompletionStage<Void> compact(long rev) {
    return compaction.compact(rev);
  }

  // ---- snapshots: the whole store, to and from another member ----

  /**
   * A consistent copy of the whole store as it is now (see {@link StoreExport}). Taken on the
   * applier thread between batches, it ends exactly at the applied entry it names.
   */
  public StoreExport export() {
    return StoreExport.open(backend);
  }

  /** {@inheritDoc} Any thread: a LevelDB snapshot sees whole batches only. */
  @Override
  public StoreBackup backup() {
    return StoreBackup.open(backend);
  }

  /**
   * Replaces the whole store with {@code incoming}, a complete copy of another member's store
   * (see {@link IncomingStore}), which must be ahead of this one: the key index, revisions,
   * leases' records and compaction state are then those of the copy. Applier thread, between
   * batches. Readers wait meanwhile (they take the lifecycle lock) and then see the new store;
   * open exports fail. Crash-safe through {@link StoreDirs}: after a crash the directory holds
   * either the old store or the new one.
   */
  public void install(Path incoming) {
    if (!batch.idle() || compaction.pending()) {
      throw new IllegalStateException("a store cannot be replaced inside a batch");
    }
    backend.replace(incoming, () -> {
      index.clear();
      leasedAtOpen = null;
      recover();
    });
  }

  // ---- size ----

  /** How many revisions are stored on disk (what compaction has not removed). */
  long revisionsOnDisk() {
    long[] n = {0};
    backend.scanRevisions(new ReadOptions(), 0, Long.MAX_VALUE, (k, v) -> n[0]++);
    return n[0];
  }

  /**
   * The size of LevelDB's files (tables, write-ahead log, manifest; not its text log, which holds
   * no data), refreshed at most every 100 ms.
   */
  @Override
  public long dbSize() {
    return backend.dbSize();
  }

  /**
   * The bytes of the revision rows held: the data, without LevelDB's own overhead (file headers,
   * index blocks, a write-ahead log not yet folded into tables), and uncompressed, so it can exceed
   * {@link #dbSize()} when LevelDB compresses well.
   */
  @Override
  public long dbSizeInUse() {
    return backend.rowBytes().get();
  }

  /** See {@link Compaction#defragment}. */
  @Override
  public CompletionStage<Void> defragment() {
    return compaction.defragment();
  }

  /** Stops the compactor (a running compaction resumes on the next open), then closes; idempotent. */
  @Override
  public synchronized void close() {
    if (closing) {
      return;
    }
    closing = true;
    compaction.stop();
    backend.close();
  }
}
