package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.akkaetcd.bbolt.EtcdExport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

  /**
   * Revision rows as etcd's "key" bucket holds them: a tombstone's value keeps only the key. A
   * value is a view of the scan's chunk bytes ({@link #scan}): the sink copies it or drops it by
   * the time the chunk after next is read, as the bbolt writer does (it holds one page's pairs).
   */
  @Override
  public void revisions(Sink<Revision> sink) throws IOException {
    scan(StoreLayout.REV, ALL_VALUES, (b, k, kn, v, vn) -> {
      io.akkaetcd.mvcc.Revision r = io.akkaetcd.mvcc.Revision.fromBytes(b, k + 1);
      boolean tombstone = isTombstone(b, k, kn);
      sink.accept(tombstone
          ? new Revision(r.main(), r.sub(), true, StoreLayout.etcdTombstoneValue(b, v, vn))
          : new Revision(r.main(), r.sub(), false, UnsafeByteOperations.unsafeWrap(b, v, vn)));
    });
  }

  /** The same rows' sizes, their values left unread except a tombstone's (which is rewritten). */
  @Override
  public void revisionSizes(SizeSink sink) throws IOException {
    scan(StoreLayout.REV, StoreBackup::isTombstone, (b, k, kn, v, vn) -> {
      boolean tombstone = isTombstone(b, k, kn);
      sink.accept(tombstone, tombstone ? StoreLayout.etcdTombstoneValue(b, v, vn).size() : vn);
    });
  }

  /** A revision row's key is its prefix byte, then the revision. */
  private static boolean isTombstone(byte[] b, int keyOffset, int keyLength) {
    return io.akkaetcd.mvcc.Revision.isTombstone(b, keyOffset + 1, keyOffset + keyLength);
  }

  @Override
  public void leases(Sink<Lease> sink) throws IOException {
    scan(StoreLayout.LEASE, ALL_VALUES, (b, k, kn, v, vn) ->
        sink.accept(new Lease(StoreLayout.leaseIdOf(b, k), StoreLayout.longOf(b, v))));
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
    scan(StoreLayout.ALARM, ALL_VALUES, (b, k, kn, v, vn) ->
        rows.add(new Row("alarm", ByteString.copyFrom(b, k + 1, kn - 1), ByteString.EMPTY)));
    scan(StoreLayout.BUCKET, ALL_VALUES, (b, k, kn, v, vn) -> {
      int end = k + 1;
      while (b[end] != 0) {
        end++;
      }
      rows.add(new Row(new String(b, k + 1, end - k - 1, java.nio.charset.StandardCharsets.UTF_8),
          ByteString.copyFrom(b, end + 1, k + kn - end - 1), ByteString.copyFrom(b, v, vn)));
    });
    return rows;
  }

  @Override
  public void close() {
    backend.underReadLock(this::release);
  }

  private interface RowSink {
    /**
     * A row as offsets into {@code b}: its key, and its value ({@code valueOffset} -1 where the
     * scan read only its length). {@code b} is valid until the chunk after next is read.
     */
    void accept(byte[] b, int keyOffset, int keyLength, int valueOffset, int valueLength) throws IOException;
  }

  /** Which rows' values a scan reads, by the row's key at an offset of a chunk's bytes. */
  private interface ValueFilter {
    boolean read(byte[] b, int keyOffset, int keyLength);
  }

  private static final ValueFilter ALL_VALUES = (b, k, kn) -> true;

  /**
   * Visits the snapshot's rows with {@code prefix} in key order, a chunk at a time; a row's value
   * is read where {@code readValue} holds for its key, else only the value's length. Two chunk
   * buffers take turns, so a row's bytes stay as they are until the chunk after next is read.
   */
  private void scan(byte prefix, ValueFilter readValue, RowSink sink) throws IOException {
    ChunkBytes[] buffers = {new ChunkBytes(BUFFER_BYTES), new ChunkBytes(BUFFER_BYTES)};
    byte[] after = null;
    for (int turn = 0; ; turn ^= 1) {
      byte[] from = after;
      ChunkBytes bytes = buffers[turn];
      Chunk chunk = backend.guarded(() -> readChunk(prefix, from, readValue, bytes));
      byte[] b = bytes.array();
      int[] r = chunk.rows();
      for (int at = 0; at < 4 * chunk.count(); at += 4) {
        sink.accept(b, r[at], r[at + 1], r[at + 2], r[at + 3]);
      }
      if (!chunk.more()) {
        return;
      }
      int last = 4 * (chunk.count() - 1);
      after = Arrays.copyOfRange(b, r[last], r[last] + r[last + 1]);
    }
  }

  /** The bytes a chunk's buffer starts with; it grows to a chunk's size where the rows need it. */
  private static final int BUFFER_BYTES = 64 << 10;

  /** {@code count} rows, four ints each in {@code rows}: key offset and length, value offset (or -1) and length. */
  private record Chunk(int[] rows, int count, boolean more) {}

  /**
   * The rows with {@code prefix} after key {@code after} (from the first if null), about a chunk,
   * copied into {@code bytes} (cleared first).
   */
  private synchronized Chunk readChunk(byte prefix, byte[] after, ValueFilter readValue, ChunkBytes bytes) {
    if (released) {
      throw new IllegalStateException("the store was closed or replaced during the snapshot");
    }
    bytes.clear();
    int[] rows = new int[4 * 64];
    int count = 0;
    try (RowCursor cursor = new RowCursor(backend.db(), new ReadOptions().snapshot(snapshot).fillCache(false))) {
      cursor.seek(after == null ? new byte[] {prefix} : after);
      long read = 0;
      for (; cursor.valid(); cursor.next()) {
        int key = bytes.length();
        int keyLength = cursor.appendKey(bytes);
        byte[] b = bytes.array();
        if (b[key] != prefix) {
          break;
        }
        if (after != null && Arrays.equals(b, key, key + keyLength, after, 0, after.length)) {
          bytes.truncate(key);
          continue;
        }
        boolean withValue = readValue.read(b, key, keyLength);
        int value = withValue ? bytes.length() : -1;
        int valueLength = withValue ? cursor.appendValue(bytes) : cursor.valueSize();
        if (4 * count == rows.length) {
          rows = Arrays.copyOf(rows, rows.length * 2);
        }
        rows[4 * count] = key;
        rows[4 * count + 1] = keyLength;
        rows[4 * count + 2] = value;
        rows[4 * count + 3] = valueLength;
        count++;
        read += keyLength + valueLength;
        if (read >= CHUNK_BYTES) {
          return new Chunk(rows, count, true);
        }
      }
      return new Chunk(rows, count, false);
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
