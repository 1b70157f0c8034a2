package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.akkaetcd.mvcc.KvStore.RangeResult;
import io.akkaetcd.mvcc.KvStore.WriteTxn;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;

/**
 * The applier's write path (etcd's batchTx): the write transactions of applied entries gathered
 * into one LevelDB write batch, which {@link #commit} writes together with the applied index, term
 * and store revision, so the store and the applied index never disagree. Only then does the new
 * revision reach readers ({@link KvIndex#publishRevision}); until then the batch's writes wait in
 * an overlay that only the applier reads.
 *
 * <p>Batches are written without fsync (the Raft journal is the durable record); one batch in
 * every {@value #SYNC_EVERY} applied entries is synced, and the journal may be truncated only
 * behind {@link #durableAppliedIndex}.
 *
 * <p>Applier-confined, but for the published indexes, which any thread reads.
 */
final class ApplyBatch {
  static final long SYNC_EVERY = 1000;

  private final KvIndex index;
  private final Backend backend;
  private final KvReads reads;
  /** The backend's count of revision-row bytes, raised by each write. */
  private final AtomicLong rowBytes;

  private volatile long appliedIndex;
  private volatile long appliedTerm;
  private volatile long durableAppliedIndex;

  private long batchRevision;
  private long batchApplied;
  private long batchAppliedTerm;
  private WriteBatch batch;
  private boolean batchDirty;
  private final Map<Revision, KeyValue> overlay = new HashMap<>();
  private Txn openTxn;
  /** Told each batch write's duration (etcd_disk_backend_commit_duration_seconds); set once at start. */
  private volatile java.util.function.LongConsumer commitTimer = nanos -> { };

  ApplyBatch(KvIndex index, Backend backend, KvReads reads) {
    this.index = index;
    this.backend = backend;
    this.reads = reads;
    this.rowBytes = backend.rowBytes();
  }

  /**
   * Starts from what the store on disk says (at open, or once a snapshot replaced it); the applied
   * index read back is made durable at once: it may sit only in the page cache (after a crash of
   * the process, not the machine), and the journal is trimmed behind it.
   */
  void recovered(long revision, long applied, long term) {
    overlay.clear();
    batchRevision = revision;
    appliedIndex = applied;
    appliedTerm = term;
    batchApplied = applied;
    batchAppliedTerm = term;
    backend.db().put(StoreLayout.META_APPLIED, StoreLayout.longBytes(applied), new WriteOptions().sync(true));
    durableAppliedIndex = applied;
  }

  long appliedIndex() {
    return appliedIndex;
  }

  long appliedTerm() {
    return appliedTerm;
  }

  long durableAppliedIndex() {
    return durableAppliedIndex;
  }

  /** The revision of the batch's last write transaction: the current revision once committed. */
  long revision() {
    return batchRevision;
  }

  /** Whether committing now would write nothing: no row in the batch and no newer applied entry. */
  boolean clean() {
    return !batchDirty && batchApplied == appliedIndex;
  }

  /** Whether neither a batch nor a transaction is open (the store may then be replaced). */
  boolean idle() {
    return batch == null && openTxn == null;
  }

  /** {@link KvStore#beginTxn}. */
  WriteTxn beginTxn(long raftIndex) {
    if (openTxn != null) {
      throw new IllegalStateException("a write transaction is already open");
    }
    batchApplied = Math.max(batchApplied, raftIndex);
    openTxn = new Txn();
    return openTxn;
  }

  /** {@link KvStore#setApplied}. */
  void setApplied(long raftIndex, long raftTerm) {
    if (raftIndex >= batchApplied) {
      batchApplied = raftIndex;
      batchAppliedTerm = raftTerm;
    }
  }

  /** Adds a row other than a revision's (a lease, an alarm, a meta value) to the batch. */
  void put(byte[] key, byte[] value) {
    batch().put(key, value);
    batchDirty = true;
  }

  /** Adds the deletion of a row other than a revision's to the batch. */
  void delete(byte[] key) {
    batch().delete(key);
    batchDirty = true;
  }

  void timeCommits(java.util.function.LongConsumer timer) {
    commitTimer = timer;
  }

  /** {@link KvStore#commitBatch}: writes the batch with its meta, then publishes its revision. */
  void commit() {
    if (clean()) {
      return;
    }
    WriteBatch b = batch();
    b.put(StoreLayout.META_APPLIED, StoreLayout.longBytes(batchApplied));
    b.put(StoreLayout.META_APPLIED_TERM, StoreLayout.longBytes(batchAppliedTerm));
    b.put(StoreLayout.META_REVISION, StoreLayout.longBytes(batchRevision));
    boolean sync = batchApplied - durableAppliedIndex >= SYNC_EVERY;
    long start = System.nanoTime();
    backend.db().write(b, new WriteOptions().sync(sync));
    commitTimer.accept(System.nanoTime() - start);
    Backend.closeQuietly(b);
    batch = null;
    batchDirty = false;
    overlay.clear();
    appliedIndex = batchApplied;
    appliedTerm = batchAppliedTerm;
    if (sync) {
      durableAppliedIndex = batchApplied;
    }
    index.publishRevision(batchRevision);
  }

  private WriteBatch batch() {
    if (batch == null) {
      batch = backend.db().createWriteBatch();
    }
    return batch;
  }

  private final class Txn implements WriteTxn {
    private final long rev = batchRevision + 1;
    private long sub;
    private final List<Event> events = new ArrayList<>();

    @Override
    public long revision() {
      return rev;
    }

    @Override
    public RangeResult range(ByteString key, ByteString rangeEnd, long limit, boolean countOnly) {
      RangeResult r = reads.rangeAt(key, rangeEnd, rev, limit, countOnly, overlay, index.liveKeysNow());
      return new RangeResult(r.kvs(), r.count(), events.isEmpty() ? batchRevision : rev);
    }

    @Override
    public KeyValue put(ByteString key, ByteString value, long lease, boolean withPrev) {
      Revision r = new Revision(rev, sub++);
      // A key already in the index gets the write appended to its history in place: found by
      // hash, nothing stored into the skip list (see KeyIndex). Appending before the batch is
      // written is safe: readers read at committed revisions, below this one. (An empty history
      // is a new key's: compaction removes emptied ones.)
      KeyIndex history = index.table().historyOf(key.toByteArray());
      boolean added = history.isEmpty();
      KeyIndex.Version prevVersion = !added && withPrev ? history.live(rev) : null;
      if (!history.liveNow()) {
        index.keyCreated(history.key());
      }
      history.put(r);
      if (added) {
        index.add(history);
      }
      KeyValue prev = prevVersion == null ? null : reads.value(prevVersion.revision(), overlay);
      KeyIndex.Version v = history.at(rev);
      KeyValue kv = KeyValue.newBuilder().setKey(key).setValue(value).setLease(lease)
          .setCreateRevision(v.createRevision()).setModRevision(rev).setVersion(v.version()).build();
      write(r, false, kv);
      history.rowWritten(kv.getSerializedSize());
      Event.Builder ev = Event.newBuilder().setType(Event.EventType.PUT).setKv(kv);
      if (prev != null) {
        ev.setPrevKv(prev);
      }
      events.add(ev.build());
      return prev;
    }

    @Override
    public List<KeyValue> deleteRange(ByteString key, ByteString rangeEnd) {
      if (rangeEnd.isEmpty()) {
        // One key (an Unlock, a Resign): its history by hash, as a put finds it, not a range walk.
        KeyIndex history = index.table().get(key.toByteArray());
        KeyValue prev = history == null ? null : delete(history);
        return prev == null ? List.of() : List.of(prev);
      }
      List<KeyValue> deleted = new ArrayList<>();
      for (KeyIndex history : new ArrayList<>(index.range(key, rangeEnd).values())) {
        KeyValue prev = delete(history);
        if (prev != null) {
          deleted.add(prev);
        }
      }
      return deleted;
    }

    /** Tombstones {@code history}'s key if it is live at this txn's revision: its previous value, else null. */
    private KeyValue delete(KeyIndex history) {
      KeyIndex.Version live = history.live(rev);
      if (live == null) {
        return null;
      }
      KeyValue prev = reads.value(live.revision(), overlay);
      Revision r = new Revision(rev, sub++);
      KeyValue tomb = KeyValue.newBuilder().setKey(UnsafeByteOperations.unsafeWrap(history.key())).setModRevision(rev).build();
      write(r, true, tomb);
      history.tombstone(r);
      index.keyDeleted(history.key());
      events.add(Event.newBuilder().setType(Event.EventType.DELETE).setKv(tomb).setPrevKv(prev).build());
      return prev;
    }

    private void write(Revision r, boolean tombstone, KeyValue kv) {
      byte[] k = StoreLayout.revKey(r, tombstone);
      byte[] v = kv.toByteArray();
      batch().put(k, v);
      rowBytes.addAndGet(k.length + v.length);
      batchDirty = true;
      overlay.put(r, kv);
    }

    @Override
    public List<Event> end() {
      if (openTxn != this) {
        throw new IllegalStateException("transaction already ended");
      }
      openTxn = null;
      if (!events.isEmpty()) {
        batchRevision = rev;
      }
      return List.copyOf(events);
    }
  }
}
