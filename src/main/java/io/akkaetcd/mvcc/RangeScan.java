package io.akkaetcd.mvcc;

import com.google.protobuf.CodedOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.iq80.leveldb.ReadOptions;

/**
 * {@link RangeRows} read from LevelDB. The first pass ({@link KvReads#rangeRows}) sizes the rows
 * and keeps them while they add up to at most {@value #KEEP_BYTES} bytes; past that it drops
 * them and takes the sizes from the key index, where it knows them. {@link #next} then walks the
 * key index again from where the last chunk ended, reading each live key's row at the range's
 * revision. Memory: one chunk, whatever the range.
 *
 * <p>Both walks see the same rows while the store is not compacted past the range's revision
 * (a compaction at or below it keeps every row live at it); past it, a chunk fails with
 * COMPACTED.
 */
final class RangeScan implements RangeRows {
  /** Rows kept from the first pass while they add up to at most this; past it they are read again. */
  static final long KEEP_BYTES = 1 << 20;
  /** About how many bytes one {@link #next} reads. */
  static final long CHUNK_BYTES = 256 << 10;
  private static final ReadOptions UNCACHED = new ReadOptions().fillCache(false);

  /** Throws COMPACTED if the store was compacted past the range's revision. */
  interface Overtaken {
    void check();
  }

  private final Backend backend;
  private final NavigableMap<byte[], KeyIndex> range;
  private final long at;
  private final boolean keysOnly;
  private final Overtaken overtaken;
  private int size;
  private long bytes;
  private long count;
  private List<byte[]> kept = new ArrayList<>();
  private int handedOut;
  /** The key of the last row handed out, where the next chunk's walk starts after. */
  private byte[] lastKey;

  RangeScan(Backend backend, NavigableMap<byte[], KeyIndex> range, long at, boolean keysOnly, Overtaken overtaken) {
    this.backend = backend;
    this.range = range;
    this.at = at;
    this.keysOnly = keysOnly;
    this.overtaken = overtaken;
  }

  /**
   * First pass, under the backend's read lock: the next live version, in key order. Its row is read
   * while rows are kept, or when the index does not know its size (or the answer drops values).
   */
  void add(KeyIndex.Version v) {
    size++;
    if (kept == null && v.rowBytes() > 0 && !keysOnly) {
      bytes += CodedOutputStream.computeUInt32SizeNoTag(v.rowBytes()) + v.rowBytes();
      return;
    }
    Revision rev = v.revision();
    byte[] row = checked(v, kept != null ? backend.db().get(StoreLayout.revKey(rev, false)) : uncached(rev));
    byte[] out = keysOnly ? StoreLayout.withoutValue(row) : row;
    bytes += CodedOutputStream.computeUInt32SizeNoTag(out.length) + out.length;
    if (kept != null) {
      kept.add(out);
      if (bytes > KEEP_BYTES) {
        kept = null;
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
      handedOut = size;
      return out;
    }
    return handedOut == size ? List.of() : backend.guarded(this::readChunk);
  }

  /** The next chunk: about {@value #CHUNK_BYTES} bytes of rows, in key order. */
  private List<byte[]> readChunk() {
    List<byte[]> out = new ArrayList<>();
    long read = 0;
    for (Map.Entry<byte[], KeyIndex> e : (lastKey == null ? range : range.tailMap(lastKey, false)).entrySet()) {
      if (handedOut == size || read >= CHUNK_BYTES) {
        break;
      }
      KeyIndex.Version v = e.getValue().live(at);
      if (v == null) {
        continue;
      }
      byte[] row = checked(v, uncached(v.revision()));
      out.add(keysOnly ? StoreLayout.withoutValue(row) : row);
      read += row.length;
      handedOut++;
      lastKey = e.getKey();
    }
    overtaken.check(); // what this chunk walked is the first pass's only if nothing compacted past it
    return out;
  }

  /**
   * {@code v}'s row as read, in either pass; a missing one is COMPACTED if a compaction overtook
   * the range, and a missing or missized one otherwise means the store and its index disagree.
   */
  private byte[] checked(KeyIndex.Version v, byte[] row) {
    if (row == null) {
      overtaken.check();
      throw new IllegalStateException("revision " + v.revision() + " is in the index but not on disk");
    }
    if (v.rowBytes() > 0 && row.length != v.rowBytes()) {
      throw new IllegalStateException("the row of revision " + v.revision() + " has " + row.length
          + " bytes, the index says " + v.rowBytes());
    }
    return row;
  }

  /**
   * The row at {@code rev} read around the block cache, as LevelDB advises for bulk reads: a large
   * range neither evicts the hot blocks nor grows the member by the cache's size. Null if absent.
   */
  private byte[] uncached(Revision rev) {
    return backend.db().get(StoreLayout.revKey(rev, false), UNCACHED);
  }
}
