package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.File;
import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MVCC store on LevelDB (see {@link KvStore} for the contract).
 *
 * <p>On disk: {@code 'r' + revision bytes [+ 't']} → the serialized {@link KeyValue} written at
 * that revision (a delete stores only key and mod_revision); {@code 'm' + name} → 8-byte meta
 * values: the applied raft index, the store revision, the finished and the scheduled compaction
 * revisions; {@code 'l' + lease id} → TTL; {@code 'a' + alarm} → nothing (the raised alarms). A batch of applied entries is one LevelDB write carrying its meta, so the store and
 * the applied index never disagree.
 *
 * <p>In memory: the key index, key → {@link KeyIndex} (the key's history, which the applier
 * appends to in place and readers read without locks), in a concurrent skip list. Its keys
 * are bare byte arrays in etcd's order ({@link KeyOrder#BYTES}), never changed once in the map: a
 * ByteString around each would add 24 bytes to every key (a million keys are 1M entries).
 * Readers look only at revisions up to the published {@link #currentRevision()}, which moves after
 * a batch is on disk; the applier's uncommitted writes wait in an overlay that only it reads.
 * The applier finds a key's history by hash, in a {@link KeyTable} of the same histories, and
 * walks the skip list only to add a key or to range.
 */
public final class MvccStore implements KvStore {
  private static final Logger log = LoggerFactory.getLogger(MvccStore.class);
  private static final byte REV = 'r';
  static final byte[] META_APPLIED = meta("applied");
  /** The applied index of the snapshot this store was installed from (see {@link IncomingStore#finish}). */
  static final byte[] META_INSTALLED = meta("installed");
  private static final byte[] META_APPLIED_TERM = meta("applied-term");
  private static final byte[] META_REVISION = meta("revision");
  private static final byte[] META_COMPACT_FINISHED = meta("compact-finished");
  private static final byte[] META_COMPACT_SCHEDULED = meta("compact-scheduled");
  private static final int COMPACTION_BATCH = 1000;
  private static final ByteString NUL = ByteString.copyFrom(new byte[] {0});

  private final Path dir;
  /** Replaced only by {@link #install}, under the lifecycle lock's write side. */
  private volatile DB db;
  private final ConcurrentSkipListMap<byte[], KeyIndex> index = new ConcurrentSkipListMap<>(KeyOrder.BYTES);
  /**
   * The histories of {@link #index} by hash: always the same key → history pairs. Applier-confined
   * (set when the store opens); the two change together where a key is added ({@code Txn.put}) and
   * where compaction replaces or drops a history ({@link #compactIndex}).
   */
  private KeyTable table;
  private final ExecutorService compactor;

  /**
   * Bytes of the revision rows the store holds (keys and values as written): what it reports as
   * in use and what the backend quota counts. Set by the scan at open, raised by the applier's
   * writes, lowered by the compactor as it deletes.
   */
  private final java.util.concurrent.atomic.AtomicLong rowBytes = new java.util.concurrent.atomic.AtomicLong();
  private volatile long currentRevision;
  private volatile long compactRevision;
  private volatile long appliedIndex;
  private volatile long appliedTerm;
  private volatile long installedIndex;
  /**
   * The applied index that is on disk for sure. Batches are written without fsync (the Raft
   * journal is the durable record); one batch in every {@value #SYNC_EVERY} applied entries is
   * synced, and the journal may be truncated only behind this index.
   */
  private volatile long durableAppliedIndex;
  static final long SYNC_EVERY = 1000;
  /** Live keys with a lease, gathered by the scan at open; handed out once, to the lessor. */
  private Map<ByteString, Long> leasedAtOpen;

  // Applier-confined batch state.
  private long batchRevision;
  private long batchApplied;
  private long batchAppliedTerm;
  private WriteBatch batch;
  private boolean batchDirty;
  private final Map<Revision, KeyValue> overlay = new HashMap<>();
  private Txn openTxn;
  /** A compaction of a revision of the uncommitted batch: started once the batch is on disk. */
  private long pendingCompact;
  private CompletableFuture<Void> pendingCompactDone;
  private volatile boolean closing;

  private MvccStore(Path dir, DB db) {
    this.dir = dir;
    this.db = db;
    this.compactor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "mvcc-compactor");
      t.setDaemon(true);
      return t;
    });
  }

  public static MvccStore open(Path dir) {
    try {
      StoreDirs.finishInterruptedInstall(dir);
      Files.createDirectories(dir);
      DB db;
      try {
        db = openLevelDb(dir);
      } catch (IOException e) {
        throw StartupException.unopenable(dir, "the MVCC store", e);
      }
      MvccStore store = new MvccStore(dir, db);
      store.recover();
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the MVCC store in " + dir, e);
    }
  }

  private static DB openLevelDb(Path dir) throws IOException {
    return JniDBFactory.factory.open(dir.toFile(), new Options().createIfMissing(true).cacheSize(64L << 20));
  }

  /** Rebuilds the key index from disk and resumes an unfinished compaction. */
  private void recover() {
    long revision = Math.max(1, getMeta(META_REVISION));
    long finished = getMeta(META_COMPACT_FINISHED);
    long scheduled = getMeta(META_COMPACT_SCHEDULED);
    java.util.concurrent.atomic.LongAdder bytes = new java.util.concurrent.atomic.LongAdder();
    IndexRebuild rebuilt = rebuildIndex(revision, Math.max(finished, scheduled), bytes);
    rowBytes.set(bytes.sum());
    leasedAtOpen = rebuilt.leased();
    rebuilt.fill(index);
    table = rebuilt.table();
    currentRevision = revision;
    batchRevision = revision;
    appliedIndex = getMeta(META_APPLIED);
    appliedTerm = getMeta(META_APPLIED_TERM);
    installedIndex = getMeta(META_INSTALLED);
    batchApplied = appliedIndex;
    batchAppliedTerm = appliedTerm;
    // What was read back may sit only in the page cache (after a crash of the process, not the
    // machine): one synced write makes it durable before the journal is trimmed behind it.
    db.put(META_APPLIED, longBytes(appliedIndex), new WriteOptions().sync(true));
    durableAppliedIndex = appliedIndex;
    compactRevision = Math.max(finished, scheduled);
    if (compactRevision > 0) {
      compactIndex(compactRevision);
    }
    if (scheduled > finished) {
      log.info("resuming the compaction at revision {}", scheduled);
      schedulePhysicalCompaction(scheduled);
    }
    log.info("opened MVCC store {}: revision {}, compacted {}, applied index {}, {} revisions",
        dir, revision, compactRevision, appliedIndex, rebuilt.rows());
  }

  /**
   * Reads the key index back from every revision row (the block cache is left alone). With more
   * than one core the history is read in two halves at once, the later one on a thread of its own,
   * then joined: copying the rows out of LevelDB is most of the time a large store takes to open.
   * Rows at or below the compaction revision are sparse (one per key at most), so the halves split
   * the revisions after it.
   */
  private IndexRebuild rebuildIndex(long revision, long compacted, java.util.concurrent.atomic.LongAdder bytes) {
    IndexRebuild lower = new IndexRebuild();
    if (Runtime.getRuntime().availableProcessors() < 2) {
      scanRevisions(new ReadOptions().fillCache(false), 0, Long.MAX_VALUE, counted(lower, bytes));
      return lower;
    }
    long split = compacted + (revision - compacted) / 2;
    CompletableFuture<IndexRebuild> upper = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        IndexRebuild later = new IndexRebuild();
        scanRevisions(new ReadOptions().fillCache(false), split + 1, Long.MAX_VALUE, counted(later, bytes));
        upper.complete(later);
      } catch (Throwable t) {
        upper.completeExceptionally(t);
      }
    }, "mvcc-index-rebuild");
    reader.start();
    scanRevisions(new ReadOptions().fillCache(false), 0, split, counted(lower, bytes));
    try {
      lower.append(upper.join());
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    return lower;
  }

  /** Adds each row to the rebuilt index and its size to {@code bytes}. */
  private static java.util.function.BiConsumer<byte[], byte[]> counted(IndexRebuild into,
      java.util.concurrent.atomic.LongAdder bytes) {
    return (k, v) -> {
      bytes.add(k.length + v.length);
      into.add(k, v);
    };
  }

  // ---- reads ----

  @Override
  public long currentRevision() {
    return currentRevision;
  }

  @Override
  public long compactRevision() {
    return compactRevision;
  }

  @Override
  public long appliedIndex() {
    return appliedIndex;
  }

  @Override
  public long appliedTerm() {
    return appliedTerm;
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
    return durableAppliedIndex;
  }

  @Override
  public RangeResult range(ByteString key, ByteString rangeEnd, long rev, long limit, boolean countOnly) {
    return guarded(() -> readRange(key, rangeEnd, rev, limit, countOnly));
  }

  private RangeResult readRange(ByteString key, ByteString rangeEnd, long rev, long limit, boolean countOnly) {
    long current = currentRevision;
    long at = rev <= 0 ? current : rev;
    if (at > current) {
      throw EtcdError.FUTURE_REV.exception();
    }
    if (at < compactRevision) {
      throw EtcdError.COMPACTED.exception();
    }
    RangeResult r;
    try {
      r = rangeAt(key, rangeEnd, at, limit, countOnly, false);
    } catch (IllegalStateException missing) {
      if (at < compactRevision) {
        throw EtcdError.COMPACTED.exception();
      }
      throw missing;
    }
    if (at < compactRevision) {
      // A compaction overtook this read: what it saw may be incomplete.
      throw EtcdError.COMPACTED.exception();
    }
    return new RangeResult(r.kvs(), r.count(), current);
  }

  private RangeResult rangeAt(ByteString key, ByteString rangeEnd, long at, long limit, boolean countOnly,
      boolean withOverlay) {
    List<KeyValue> kvs = new ArrayList<>();
    long count = 0;
    for (Map.Entry<byte[], KeyIndex> e : keys(key, rangeEnd).entrySet()) {
      KeyIndex.Version v = e.getValue().live(at);
      if (v == null) {
        continue;
      }
      count++;
      if (!countOnly && (limit <= 0 || kvs.size() < limit)) {
        kvs.add(value(v.revision(), withOverlay));
      }
    }
    return new RangeResult(kvs, count, at);
  }

  /** The keys in range as etcd reads rangeEnd: empty = one key, "\0" = every key from key on. */
  private NavigableMap<byte[], KeyIndex> keys(ByteString key, ByteString rangeEnd) {
    byte[] from = key.toByteArray();
    if (rangeEnd.isEmpty()) {
      return index.subMap(from, true, from, true);
    }
    if (rangeEnd.equals(NUL)) {
      return index.tailMap(from, true);
    }
    if (KeyOrder.COMPARATOR.compare(key, rangeEnd) >= 0) {
      return Collections.emptyNavigableMap();
    }
    return index.subMap(from, true, rangeEnd.toByteArray(), false);
  }

  private KeyValue value(Revision rev, boolean withOverlay) {
    if (withOverlay) {
      KeyValue kv = overlay.get(rev);
      if (kv != null) {
        return kv;
      }
    }
    byte[] bytes = db.get(revKey(rev, false));
    if (bytes == null) {
      throw new IllegalStateException("revision " + rev + " is in the index but not on disk");
    }
    return parse(bytes);
  }

  // ---- writes (applier-confined) ----

  @Override
  public WriteTxn beginTxn(long raftIndex) {
    if (openTxn != null) {
      throw new IllegalStateException("a write transaction is already open");
    }
    batchApplied = Math.max(batchApplied, raftIndex);
    openTxn = new Txn();
    return openTxn;
  }

  @Override
  public void setApplied(long raftIndex, long raftTerm) {
    if (raftIndex >= batchApplied) {
      batchApplied = raftIndex;
      batchAppliedTerm = raftTerm;
    }
  }

  @Override
  public void commitBatch() {
    if (batchApplied == appliedIndex && !batchDirty) {
      return;
    }
    WriteBatch b = batch();
    b.put(META_APPLIED, longBytes(batchApplied));
    b.put(META_APPLIED_TERM, longBytes(batchAppliedTerm));
    b.put(META_REVISION, longBytes(batchRevision));
    boolean sync = batchApplied - durableAppliedIndex >= SYNC_EVERY;
    db.write(b, new WriteOptions().sync(sync));
    closeQuietly(b);
    batch = null;
    batchDirty = false;
    overlay.clear();
    appliedIndex = batchApplied;
    appliedTerm = batchAppliedTerm;
    if (sync) {
      durableAppliedIndex = batchApplied;
    }
    currentRevision = batchRevision;
    if (pendingCompact > 0) {
      long rev = pendingCompact;
      CompletableFuture<Void> done = pendingCompactDone;
      pendingCompact = 0;
      pendingCompactDone = null;
      startCompaction(rev).whenComplete((v, e) -> {
        if (e != null) {
          done.completeExceptionally(e);
        } else {
          done.complete(null);
        }
      });
    }
  }

  private WriteBatch batch() {
    if (batch == null) {
      batch = db.createWriteBatch();
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
      RangeResult r = rangeAt(key, rangeEnd, rev, limit, countOnly, true);
      return new RangeResult(r.kvs(), r.count(), events.isEmpty() ? batchRevision : rev);
    }

    @Override
    public KeyValue put(ByteString key, ByteString value, long lease, boolean withPrev) {
      Revision r = new Revision(rev, sub++);
      // A key already in the index gets the write appended to its history in place: found by
      // hash, nothing stored into the skip list (see KeyIndex). Appending before the batch is
      // written is safe: readers read at committed revisions, below this one. (An empty history
      // is a new key's: compaction removes emptied ones.)
      KeyIndex history = table.historyOf(key.toByteArray());
      boolean added = history.isEmpty();
      KeyIndex.Version prevVersion = !added && withPrev ? history.live(rev) : null;
      history.put(r);
      if (added) {
        index.put(history.key(), history);
      }
      KeyValue prev = prevVersion == null ? null : value(prevVersion.revision(), true);
      KeyIndex.Version v = history.at(rev);
      KeyValue kv = KeyValue.newBuilder().setKey(key).setValue(value).setLease(lease)
          .setCreateRevision(v.createRevision()).setModRevision(rev).setVersion(v.version()).build();
      write(r, false, kv);
      Event.Builder ev = Event.newBuilder().setType(Event.EventType.PUT).setKv(kv);
      if (prev != null) {
        ev.setPrevKv(prev);
      }
      events.add(ev.build());
      return prev;
    }

    @Override
    public List<KeyValue> deleteRange(ByteString key, ByteString rangeEnd) {
      List<KeyValue> deleted = new ArrayList<>();
      for (Map.Entry<byte[], KeyIndex> e : new ArrayList<>(keys(key, rangeEnd).entrySet())) {
        KeyIndex.Version live = e.getValue().live(rev);
        if (live == null) {
          continue;
        }
        KeyValue prev = value(live.revision(), true);
        Revision r = new Revision(rev, sub++);
        KeyValue tomb = KeyValue.newBuilder().setKey(UnsafeByteOperations.unsafeWrap(e.getKey())).setModRevision(rev).build();
        write(r, true, tomb);
        e.getValue().tombstone(r);
        events.add(Event.newBuilder().setType(Event.EventType.DELETE).setKv(tomb).setPrevKv(prev).build());
        deleted.add(prev);
      }
      return deleted;
    }

    private void write(Revision r, boolean tombstone, KeyValue kv) {
      byte[] k = revKey(r, tombstone);
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

  // ---- history ----

  @Override
  public List<Event> events(long fromRev, long toRev) {
    return guarded(() -> readEvents(fromRev, toRev));
  }

  private List<Event> readEvents(long fromRev, long toRev) {
    // The compaction revision is kept (the newest row of each live key at it), so history from
    // it on is complete, as etcd's watch reads it.
    if (fromRev < compactRevision) {
      throw EtcdError.COMPACTED.exception();
    }
    long to = Math.min(toRev, currentRevision);
    List<Event> out = new ArrayList<>();
    Snapshot snapshot = db.getSnapshot();
    try {
      ReadOptions options = new ReadOptions().snapshot(snapshot);
      scanRevisions(options, fromRev, to, (k, value) -> {
        Revision rev = Revision.fromBytes(k, 1);
        KeyValue kv = parse(value);
        Event.Builder e = Event.newBuilder().setKv(kv)
            .setType(Revision.isTombstone(k, 1) ? Event.EventType.DELETE : Event.EventType.PUT);
        KeyIndex ki = index.get(kv.getKey().toByteArray());
        KeyIndex.Version prev = ki == null ? null : ki.live(rev.main() - 1);
        if (prev != null) {
          byte[] prevBytes = db.get(revKey(prev.revision(), false), options);
          if (prevBytes != null) {
            e.setPrevKv(parse(prevBytes));
          }
        }
        out.add(e.build());
      });
    } finally {
      closeQuietly(snapshot);
    }
    if (fromRev < compactRevision) {
      throw EtcdError.COMPACTED.exception(); // compacted while reading
    }
    return out;
  }

  // ---- leases ----

  private static final byte LEASE = 'l';

  private static byte[] leaseKey(long id) {
    return ByteBuffer.allocate(9).put(LEASE).putLong(id).array();
  }

  @Override
  public void putLease(long id, long ttlSeconds) {
    batch().put(leaseKey(id), longBytes(ttlSeconds));
    batchDirty = true;
  }

  @Override
  public void deleteLease(long id) {
    batch().delete(leaseKey(id));
    batchDirty = true;
  }

  @Override
  public Map<Long, Long> leases() {
    return guarded(this::readLeases);
  }

  private Map<Long, Long> readLeases() {
    Map<Long, Long> out = new HashMap<>();
    scanPrefix(LEASE, (k, v) -> out.put(ByteBuffer.wrap(k, 1, 8).getLong(), ByteBuffer.wrap(v).getLong()));
    return out;
  }

  /** Visits every row whose key starts with {@code prefix}, in key order. */
  private void scanPrefix(byte prefix, java.util.function.BiConsumer<byte[], byte[]> visitor) {
    try (DBIterator it = db.iterator()) {
      for (it.seek(new byte[] {prefix}); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next(); // one copy of the row (see scanRevisions)
        if (e.getKey()[0] != prefix) {
          break;
        }
        visitor.accept(e.getKey(), e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- alarms: 'a' + the alarm's serialized form (as etcd's alarm bucket keys them), no value ----

  private static final byte ALARM = 'a';

  private static byte[] alarmKey(byte[] record) {
    return ByteBuffer.allocate(record.length + 1).put(ALARM).put(record).array();
  }

  @Override
  public void putAlarm(byte[] record) {
    batch().put(alarmKey(record), new byte[0]);
    batchDirty = true;
  }

  @Override
  public void deleteAlarm(byte[] record) {
    batch().delete(alarmKey(record));
    batchDirty = true;
  }

  @Override
  public List<byte[]> alarms() {
    return guarded(() -> {
      List<byte[]> out = new ArrayList<>();
      scanPrefix(ALARM, (k, v) -> out.add(java.util.Arrays.copyOfRange(k, 1, k.length)));
      return out;
    });
  }

  // ---- snapshots: the whole store, to and from another member ----

  /** Exports not yet closed: closing or replacing the store releases them first. */
  private final Set<Export> exports = ConcurrentHashMap.newKeySet();

  /**
   * A consistent copy of the whole store as it is now, to be read in chunks on another thread (a
   * LevelDB snapshot: the applier and the compactor go on meanwhile). Taken on the applier thread
   * between batches, it ends exactly at the applied entry it names. The caller closes it; closing
   * or replacing the store closes it too, and its reads then fail.
   */
  public Export export() {
    return guarded(() -> {
      Export e = new Export(db);
      exports.add(e);
      return e;
    });
  }

  /** One export of the store: every row, in key order, with the applied entry it ends at. */
  public final class Export implements AutoCloseable {
    private final Snapshot snapshot;
    private final DBIterator rows;
    private final long index;
    private final long term;
    private boolean released;

    private Export(DB source) {
      snapshot = source.getSnapshot();
      ReadOptions options = new ReadOptions().snapshot(snapshot).fillCache(false);
      index = longOf(source.get(META_APPLIED, options));
      term = longOf(source.get(META_APPLIED_TERM, options));
      rows = source.iterator(options);
      rows.seekToFirst();
    }

    /** The raft index of the last entry this copy reflects. */
    public long appliedIndex() {
      return index;
    }

    /** The raft term of that entry. */
    public long appliedTerm() {
      return term;
    }

    /** The next rows (key, value), about {@code maxBytes} of them; none once all were read. */
    public List<Map.Entry<byte[], byte[]>> next(long maxBytes) {
      return guarded(() -> {
        synchronized (this) {
          if (released) {
            throw new IllegalStateException("the store was closed or replaced during the export");
          }
          List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
          long bytes = 0;
          while (bytes < maxBytes && rows.hasNext()) {
            Map.Entry<byte[], byte[]> row = rows.next();
            out.add(row);
            bytes += row.getKey().length + row.getValue().length;
          }
          return out;
        }
      });
    }

    /** Whether every row was read. */
    public boolean exhausted() {
      return guarded(() -> {
        synchronized (this) {
          return released || !rows.hasNext();
        }
      });
    }

    @Override
    public void close() {
      long stamp = lifecycle.readLock();
      try {
        release();
      } finally {
        lifecycle.unlockRead(stamp);
      }
    }

    /** Frees the iterator and the snapshot (under the lifecycle lock, either side); idempotent. */
    private synchronized void release() {
      if (!released) {
        released = true;
        closeQuietly(rows);
        closeQuietly(snapshot);
        exports.remove(this);
      }
    }
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
    if (batch != null || openTxn != null || pendingCompact > 0) {
      throw new IllegalStateException("a store cannot be replaced inside a batch");
    }
    long stamp = lifecycle.writeLock();
    try {
      if (closed) {
        throw EtcdError.STOPPED.exception();
      }
      List.copyOf(exports).forEach(Export::release);
      db.close();
      StoreDirs.replace(dir, incoming);
      db = openLevelDb(dir);
      index.clear();
      overlay.clear();
      leasedAtOpen = null;
      recover();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot replace the MVCC store in " + dir, e);
    } finally {
      lifecycle.unlockWrite(stamp);
    }
  }

  // ---- compaction ----

  /**
   * Compacts at {@code rev}. Checked against the applier's view (the revisions of the uncommitted
   * batch count), so the answer does not depend on how entries were batched. With nothing
   * uncommitted it starts at once: the scheduled revision is written first, then the index is
   * compacted and the rows are deleted in the background. Otherwise the scheduled revision goes
   * into the batch (with the compaction entry's applied index) and the compaction starts right
   * after {@link #commitBatch()} wrote it: no row is deleted before the history it belongs to is
   * on disk, and after a crash the entry is either applied with its batch or replayed cleanly.
   */
  @Override
  public CompletionStage<Void> compact(long rev) {
    if (rev <= Math.max(compactRevision, pendingCompact)) {
      throw EtcdError.COMPACTED.exception();
    }
    if (rev > batchRevision) {
      throw EtcdError.FUTURE_REV.exception();
    }
    if (pendingCompact == 0 && !batchDirty && batchApplied == appliedIndex) {
      return startCompaction(rev); // nothing uncommitted: rev <= currentRevision
    }
    batch().put(META_COMPACT_SCHEDULED, longBytes(rev));
    batchDirty = true;
    pendingCompact = rev;
    if (pendingCompactDone == null) {
      pendingCompactDone = new CompletableFuture<>();
    }
    return pendingCompactDone;
  }

  /** Persists {@code rev} as scheduled, publishes it, compacts the index, deletes in the background. */
  private CompletionStage<Void> startCompaction(long rev) {
    db.put(META_COMPACT_SCHEDULED, longBytes(rev), new WriteOptions().sync(false));
    // Published before the index shrinks: a reader below it re-checks and answers COMPACTED.
    compactRevision = rev;
    compactIndex(rev);
    return schedulePhysicalCompaction(rev);
  }

  private void compactIndex(long rev) {
    for (Map.Entry<byte[], KeyIndex> e : index.entrySet()) {
      KeyIndex compacted = e.getValue().compact(rev);
      if (compacted != e.getValue()) {
        if (compacted.isEmpty()) {
          index.remove(e.getKey(), e.getValue());
          table.remove(e.getKey());
        } else {
          index.replace(e.getKey(), e.getValue(), compacted);
          table.put(compacted);
        }
      }
    }
  }

  /**
   * Deletes from disk, in batches of {@value #COMPACTION_BATCH}, every revision at or before
   * {@code rev} that the compacted index no longer holds; completes after a synced write that
   * records the compaction as finished.
   */
  private CompletionStage<Void> schedulePhysicalCompaction(long rev) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    DB compacted = db;
    compactor.execute(() -> {
      try {
        long deleted = 0;
        byte[] from = revKey(new Revision(0, 0), false);
        while (from != null) {
          if (closing) {
            throw new CancellationException("store closing");
          }
          List<byte[]> doomed = new ArrayList<>();
          long[] doomedBytes = {0};
          byte[] start = from;
          from = guarded(() -> scanDoomed(sameDb(compacted), start, rev, doomed, doomedBytes));
          deleted += doomed.size();
          guarded(() -> {
            deleteAll(sameDb(compacted), doomed);
            rowBytes.addAndGet(-doomedBytes[0]); // (a replaced store recounted its own at open)
            return null;
          });
        }
        guarded(() -> {
          sameDb(compacted).put(META_COMPACT_FINISHED, longBytes(rev), new WriteOptions().sync(true));
          return null;
        });
        log.info("finished the compaction at revision {}: {} revisions deleted", rev, deleted);
        done.complete(null);
      } catch (CancellationException e) {
        log.info("compaction at revision {} interrupted by close; resumed on open", rev);
        done.completeExceptionally(e);
      } catch (RuntimeException e) {
        if (closing) {
          log.info("compaction at revision {} interrupted by close; resumed on open", rev);
        } else {
          log.error("compaction at revision {} failed", rev, e);
        }
        done.completeExceptionally(e);
      }
    });
    return done;
  }

  /**
   * Examines, from row {@code from} on, up to {@value #COMPACTION_BATCH} rows at or before
   * {@code rev} and collects into {@code doomed} those the compacted index no longer holds (their
   * size into {@code doomedBytes[0]}). The
   * iterator (and the LevelDB version it pins) lives for one batch only.
   *
   * @return the row to continue from, or null when every row at or before {@code rev} was seen
   */
  private byte[] scanDoomed(DB db, byte[] from, long rev, List<byte[]> doomed, long[] doomedBytes) {
    int examined = 0;
    try (DBIterator it = db.iterator()) {
      for (it.seek(from); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next(); // one copy of the row (see scanRevisions)
        byte[] k = e.getKey();
        if (k[0] != REV || Revision.fromBytes(k, 1).main() > rev) {
          return null;
        }
        if (examined++ == COMPACTION_BATCH) {
          return k;
        }
        KeyIndex ki = index.get(IndexFields.parse(e.getValue()).key());
        if (ki == null || !ki.contains(Revision.fromBytes(k, 1))) {
          doomed.add(k);
          doomedBytes[0] += k.length + e.getValue().length;
        }
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The store's LevelDB if it is still {@code expected}; a compaction of a store that a snapshot
   * replaced stops (the snapshot brings its own compaction state and resumes it).
   */
  private DB sameDb(DB expected) {
    if (db != expected) {
      throw new CancellationException("store replaced by a snapshot");
    }
    return expected;
  }

  private void deleteAll(DB db, List<byte[]> keys) {
    if (keys.isEmpty()) {
      return;
    }
    WriteBatch b = db.createWriteBatch();
    keys.forEach(b::delete);
    db.write(b, new WriteOptions().sync(false));
    closeQuietly(b);
    keys.clear();
  }

  /** How many revisions are stored on disk (what compaction has not removed). */
  long revisionsOnDisk() {
    long[] n = {0};
    scanRevisions(new ReadOptions(), 0, Long.MAX_VALUE, (k, v) -> n[0]++);
    return n[0];
  }

  /**
   * Visits, in revision order, every stored revision row whose main revision is in [fromMain, toMain].
   * Each row is read with {@code next()} alone: leveldbjni's {@code peekNext()} copies the key and
   * the value out of LevelDB, and its {@code next()} copies them again, so the usual peek-then-next
   * loop read every row twice.
   */
  private void scanRevisions(ReadOptions options, long fromMain, long toMain,
      java.util.function.BiConsumer<byte[], byte[]> visitor) {
    try (DBIterator it = db.iterator(options)) {
      for (it.seek(revKey(new Revision(fromMain, 0), false)); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next();
        byte[] k = e.getKey();
        if (k[0] != REV || Revision.fromBytes(k, 1).main() > toMain) {
          return;
        }
        visitor.accept(k, e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- hash and size ----

  @Override
  public HashResult hashKV(long rev) {
    return guarded(() -> readHash(rev));
  }

  private HashResult readHash(long rev) {
    long current = currentRevision;
    long at = rev <= 0 ? current : rev;
    if (at > current) {
      throw EtcdError.FUTURE_REV.exception();
    }
    while (true) {
      long compacted = compactRevision;
      if (at < compacted) {
        throw EtcdError.COMPACTED.exception();
      }
      Snapshot snapshot = db.getSnapshot();
      try {
        // compactRevision is published before any row is deleted: if it has not moved once the
        // snapshot exists, the snapshot holds every row in (compacted, at]. Otherwise a
        // compaction may already have removed some of them: hash again against the new one.
        if (compactRevision != compacted) {
          continue;
        }
        CRC32C crc = new CRC32C();
        scanRevisions(new ReadOptions().snapshot(snapshot), compacted + 1, at, (k, value) -> {
          crc.update(k, 1, k.length - 1);
          crc.update(value);
        });
        return new HashResult((int) crc.getValue(), compacted, at);
      } finally {
        closeQuietly(snapshot);
      }
    }
  }

  /**
   * The size of LevelDB's files (tables, write-ahead log, manifest; not its text log, which holds
   * no data). Listing the directory costs a system call per file: refreshed at most every 100 ms.
   */
  private static final long DB_SIZE_REFRESH_NANOS = 100_000_000L;
  private volatile long dbSize = -1;
  private volatile long dbSizeAt;

  @Override
  public long dbSize() {
    long now = System.nanoTime();
    if (dbSize < 0 || now - dbSizeAt > DB_SIZE_REFRESH_NANOS) {
      try (Stream<Path> files = Files.list(dir)) {
        dbSize = files.filter(f -> !INFO_LOGS.contains(f.getFileName().toString()))
            .map(Path::toFile).filter(File::isFile).mapToLong(File::length).sum();
      } catch (IOException e) {
        dbSize = 0;
      }
      dbSizeAt = now;
    }
    return dbSize;
  }

  private static final Set<String> INFO_LOGS = Set.of("LOG", "LOG.old");

  /**
   * The bytes of the revision rows held: the data, without LevelDB's own overhead (file headers,
   * index blocks, a write-ahead log not yet folded into tables), and uncompressed, so it can exceed
   * {@link #dbSize()} when LevelDB compresses well.
   */
  @Override
  public long dbSizeInUse() {
    return rowBytes.get();
  }

  /**
   * etcd's defragment for LevelDB: compacts every level over the whole key space (on the
   * compactor's thread, after any physical compaction queued before it), so the files shrink to
   * the rows still held.
   */
  @Override
  public CompletionStage<Void> defragment() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    compactor.execute(() -> {
      try {
        guarded(() -> {
          db.compactRange(new byte[] {0}, new byte[] {(byte) 0xff});
          return null;
        });
        dbSize = -1; // measured afresh on the next call
        done.complete(null);
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    });
    return done;
  }

  /**
   * Readers on other threads may still be inside LevelDB when the store closes; closing LevelDB
   * under a running get or a live iterator or snapshot would crash the JVM. Every read holds this
   * lock's read side (uncontended but for close; never nested); close takes the write side.
   */
  private final StampedLock lifecycle = new StampedLock();
  private boolean closed; // guarded by lifecycle

  private <T> T guarded(Supplier<T> read) {
    long stamp = lifecycle.readLock();
    try {
      if (closed) {
        throw EtcdError.STOPPED.exception();
      }
      return read.get();
    } finally {
      lifecycle.unlockRead(stamp);
    }
  }

  /** Stops the compactor (a running compaction resumes on the next open), then closes; idempotent. */
  @Override
  public synchronized void close() {
    if (closing) {
      return;
    }
    closing = true;
    compactor.shutdown();
    try {
      if (!compactor.awaitTermination(60, TimeUnit.SECONDS)) {
        log.warn("the compactor did not stop; closing LevelDB anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long stamp = lifecycle.writeLock();
    try {
      closed = true;
      List.copyOf(exports).forEach(Export::release);
      db.close();
    } catch (IOException e) {
      log.warn("closing LevelDB failed", e);
    } finally {
      lifecycle.unlockWrite(stamp);
    }
  }

  // ---- encoding ----

  /** The row key of a revision: {@code 'r'}, the revision's bytes, {@code 't'} for a delete. */
  static byte[] revKey(Revision r, boolean tombstone) {
    byte[] rev = r.toBytes(tombstone);
    byte[] k = new byte[rev.length + 1];
    k[0] = REV;
    System.arraycopy(rev, 0, k, 1, rev.length);
    return k;
  }

  private static byte[] meta(String name) {
    byte[] n = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] k = new byte[n.length + 1];
    k[0] = 'm';
    System.arraycopy(n, 0, k, 1, n.length);
    return k;
  }

  private long getMeta(byte[] key) {
    return longOf(db.get(key));
  }

  private static long longOf(byte[] v) {
    return v == null ? 0 : ByteBuffer.wrap(v).getLong();
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  private static KeyValue parse(byte[] bytes) {
    try {
      return KeyValue.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("corrupt revision in the MVCC store", e);
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      log.warn("closing a LevelDB resource failed", e);
    }
  }
}
