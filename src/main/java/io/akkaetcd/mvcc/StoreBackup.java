package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.akkaetcd.bbolt.EtcdExport;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;

/**
 * The store at one point in time in etcd's backend layout, for Maintenance.Snapshot: a LevelDB
 * snapshot read as often as the bbolt writer needs (twice), while the applier and the compactor go
 * on. Rows are read in chunks of about {@value #CHUNK_BYTES} bytes under the backend's lifecycle
 * lock and handed out after it is released, so a slow reader never holds up a close; closing or
 * replacing the store releases the snapshot, and later reads fail. The caller closes it.
 */
public final class StoreBackup implements KvStore.Backup {
  static final long CHUNK_BYTES = 1 << 20;

  private final Backend backend;
  private final Backend.Pinned pin = this::release;
  private final Snapshot snapshot;
  private final long appliedIndex;
  private final long finishedCompaction;
  private final long scheduledCompaction;
  private boolean released; // guarded by this

  private StoreBackup(Backend backend) {
    this.backend = backend;
    snapshot = backend.db().getSnapshot();
    ReadOptions options = new ReadOptions().snapshot(snapshot);
    appliedIndex = StoreLayout.longOf(backend.db().get(StoreLayout.META_APPLIED, options));
    finishedCompaction = StoreLayout.longOf(backend.db().get(StoreLayout.META_COMPACT_FINISHED, options));
    scheduledCompaction = StoreLayout.longOf(backend.db().get(StoreLayout.META_COMPACT_SCHEDULED, options));
  }

  /** A backup of the store as it is now; STOPPED once the store is closed. */
  static StoreBackup open(Backend backend) {
    return backend.guarded(() -> {
      StoreBackup b = new StoreBackup(backend);
      backend.pin(b.pin);
      return b;
    });
  }

  /** Revision rows as etcd's "key" bucket holds them: a tombstone's value keeps only the key. */
  @Override
  public void revisions(Sink<Revision> sink) throws IOException {
    scan(StoreLayout.REV, ALL_VALUES, (k, v, size) -> {
      io.akkaetcd.mvcc.Revision r = io.akkaetcd.mvcc.Revision.fromBytes(k, 1);
      boolean tombstone = isTombstone(k);
      // Rows pass through as stored (each a fresh array of the chunk); only a tombstone is rewritten.
      sink.accept(tombstone
          ? new Revision(r.main(), r.sub(), true, tombstoneValue(v))
          : new Revision(r.main(), r.sub(), false, UnsafeByteOperations.unsafeWrap(v)));
    });
  }

  /** The same rows' sizes, their values left unread except a tombstone's (which is rewritten). */
  @Override
  public void revisionSizes(SizeSink sink) throws IOException {
    scan(StoreLayout.REV, StoreBackup::isTombstone, (k, v, size) -> {
      boolean tombstone = isTombstone(k);
      sink.accept(tombstone, tombstone ? tombstoneValue(v).size() : size);
    });
  }

  private static boolean isTombstone(byte[] revisionRow) {
    return io.akkaetcd.mvcc.Revision.isTombstone(revisionRow, 1);
  }

  /** etcd's tombstone row: a KeyValue holding only the deleted key. */
  private static ByteString tombstoneValue(byte[] stored) throws IOException {
    return KeyValue.newBuilder().setKey(StoreLayout.parse(stored).getKey()).build().toByteString();
  }

  @Override
  public void leases(Sink<Lease> sink) throws IOException {
    scan(StoreLayout.LEASE, ALL_VALUES, (k, v, size) -> sink.accept(new Lease(StoreLayout.leaseIdOf(k), StoreLayout.longOf(v))));
  }

  @Override
  public long consistentIndex() {
    return appliedIndex;
  }

  @Override
  public long finishedCompactRevision() {
    return finishedCompaction;
  }

  @Override
  public long scheduledCompactRevision() {
    return scheduledCompaction;
  }

  /**
   * The raised alarms, keyed as etcd's "alarm" bucket keys them (no value), and the named
   * buckets' rows (auth), already in etcd's bytes ({@link BucketRows}).
   */
  @Override
  public List<Row> rows() throws IOException {
    List<Row> rows = new ArrayList<>();
    scan(StoreLayout.ALARM, ALL_VALUES, (k, v, size) -> rows.add(new Row("alarm", ByteString.copyFrom(k, 1, k.length - 1), ByteString.EMPTY)));
    scan(StoreLayout.BUCKET, ALL_VALUES, (k, v, size) -> {
      int end = 1;
      while (k[end] != 0) {
        end++;
      }
      rows.add(new Row(new String(k, 1, end - 1, java.nio.charset.StandardCharsets.UTF_8),
          ByteString.copyFrom(k, end + 1, k.length - end - 1), ByteString.copyFrom(v)));
    });
    return rows;
  }

  @Override
  public void close() {
    backend.underReadLock(this::release);
  }

  private interface RowSink {
    /** {@code value} is null where the scan read only its length. */
    void accept(byte[] key, byte[] value, int valueSize) throws IOException;
  }

  private static final Predicate<byte[]> ALL_VALUES = key -> true;

  /**
   * Visits the snapshot's rows with {@code prefix} in key order, a chunk at a time; a row's value
   * is read where {@code readValue} holds for its key, else only the value's length.
   */
  private void scan(byte prefix, Predicate<byte[]> readValue, RowSink sink) throws IOException {
    byte[] after = null;
    while (true) {
      byte[] from = after;
      Chunk chunk = backend.guarded(() -> readChunk(prefix, from, readValue));
      for (int i = 0; i < chunk.keys().size(); i++) {
        sink.accept(chunk.keys().get(i), chunk.values().get(i), chunk.sizes()[i]);
      }
      if (!chunk.more()) {
        return;
      }
      after = chunk.keys().get(chunk.keys().size() - 1);
    }
  }

  private record Chunk(List<byte[]> keys, List<byte[]> values, int[] sizes, boolean more) {}

  /** The rows with {@code prefix} after key {@code after} (from the first if null), about a chunk. */
  private synchronized Chunk readChunk(byte prefix, byte[] after, Predicate<byte[]> readValue) {
    if (released) {
      throw new IllegalStateException("the store was closed or replaced during the snapshot");
    }
    List<byte[]> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    int[] sizes = new int[64];
    try (RowCursor rows = new RowCursor(backend.db(), new ReadOptions().snapshot(snapshot).fillCache(false))) {
      rows.seek(after == null ? new byte[] {prefix} : after);
      long bytes = 0;
      for (; rows.valid(); rows.next()) {
        byte[] key = rows.key();
        if (key[0] != prefix) {
          break;
        }
        if (after != null && Arrays.equals(key, after)) {
          continue;
        }
        byte[] value = readValue.test(key) ? rows.value() : null;
        int size = value != null ? value.length : rows.valueSize();
        if (keys.size() == sizes.length) {
          sizes = Arrays.copyOf(sizes, sizes.length * 2);
        }
        sizes[keys.size()] = size;
        keys.add(key);
        values.add(value);
        bytes += key.length + size;
        if (bytes >= CHUNK_BYTES) {
          return new Chunk(keys, values, sizes, true);
        }
      }
      return new Chunk(keys, values, sizes, false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Frees the snapshot (under the lifecycle lock, either side); idempotent. */
  private synchronized void release() {
    if (!released) {
      released = true;
      Backend.closeQuietly(snapshot);
      backend.unpin(pin);
    }
  }
}
