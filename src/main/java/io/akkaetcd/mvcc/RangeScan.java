package io.akkaetcd.mvcc;

import com.google.protobuf.CodedOutputStream;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;

/**
 * {@link RangeRows} read from LevelDB. The first pass ({@link KvReads#rangeRows}) reads every row
 * to size it and records its revision; it keeps the rows while they add up to at most
 * {@value #KEEP_BYTES} bytes. Past that it drops them and takes a LevelDB snapshot, and
 * {@link #next} reads them again from it by the recorded revisions, so a compaction during the
 * range cannot change what it hands out. Memory: 16 bytes a row, plus a chunk.
 */
final class RangeScan implements RangeRows {
  /** Rows kept from the first pass while they add up to at most this; past it they are read again. */
  static final long KEEP_BYTES = 1 << 20;
  /** About how many bytes one {@link #next} reads from the snapshot. */
  static final long CHUNK_BYTES = 256 << 10;
  /** Frees the snapshot of a range that was dropped without being closed. */
  private static final Cleaner CLEANER = Cleaner.create();

  private final Backend backend;
  private final boolean keysOnly;
  private long[] mains = new long[8];
  private long[] subs = new long[8];
  private int size;
  private long bytes;
  private long count;
  private List<byte[]> kept = new ArrayList<>();
  private int nextRow;
  /** Set once the kept rows pass {@link #KEEP_BYTES}. */
  private Hold hold;
  private Cleaner.Cleanable cleanable;

  RangeScan(Backend backend, boolean keysOnly) {
    this.backend = backend;
    this.keysOnly = keysOnly;
  }

  /** First pass, under the backend's read lock: one row, in key order. */
  void add(Revision rev, byte[] row) {
    if (size == mains.length) {
      mains = Arrays.copyOf(mains, size + (size >> 1));
      subs = Arrays.copyOf(subs, mains.length);
    }
    mains[size] = rev.main();
    subs[size] = rev.sub();
    size++;
    byte[] out = keysOnly ? StoreLayout.withoutValue(row) : row;
    bytes += CodedOutputStream.computeUInt32SizeNoTag(out.length) + out.length;
    if (kept != null) {
      kept.add(out);
      if (bytes > KEEP_BYTES) {
        kept = null;
        hold = new Hold(backend, backend.db().getSnapshot());
        backend.pin(hold);
        cleanable = CLEANER.register(this, hold);
      }
    }
  }

  void counted(long count) {
    this.count = count;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public long delimitedBytes() {
    return bytes;
  }

  @Override
  public List<byte[]> next() {
    if (kept != null) {
      List<byte[]> out = kept;
      kept = List.of();
      nextRow = size;
      return out;
    }
    return nextRow == size ? List.of() : backend.guarded(this::readChunk);
  }

  private List<byte[]> readChunk() {
    List<byte[]> out = new ArrayList<>();
    synchronized (hold) {
      if (hold.released) {
        throw new IllegalStateException("the store was closed or replaced during the range");
      }
      ReadOptions options = new ReadOptions().snapshot(hold.snapshot).fillCache(false);
      long read = 0;
      while (nextRow < size && read < CHUNK_BYTES) {
        Revision rev = new Revision(mains[nextRow], subs[nextRow]);
        byte[] row = backend.db().get(StoreLayout.revKey(rev, false), options);
        if (row == null) {
          throw new IllegalStateException("revision " + rev + " is in the snapshot's range but not on disk");
        }
        out.add(keysOnly ? StoreLayout.withoutValue(row) : row);
        read += row.length;
        nextRow++;
      }
    }
    return out;
  }

  @Override
  public void close() {
    if (cleanable != null) {
      cleanable.clean(); // runs the hold once, whoever comes first
    }
  }

  /** The snapshot, released once: by {@link #close}, by the cleaner, or when the store closes. */
  private static final class Hold implements Backend.Pinned, Runnable {
    private final Backend backend;
    private final Snapshot snapshot;
    private boolean released; // guarded by this

    Hold(Backend backend, Snapshot snapshot) {
      this.backend = backend;
      this.snapshot = snapshot;
    }

    @Override
    public synchronized void release() {
      if (!released) {
        released = true;
        backend.unpin(this);
        Backend.closeQuietly(snapshot);
      }
    }

    @Override
    public void run() {
      backend.underReadLock(this::release);
    }
  }
}
