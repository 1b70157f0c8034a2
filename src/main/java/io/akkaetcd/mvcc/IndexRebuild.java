package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.iq80.leveldb.ReadOptions;

/**
 * The key index read back from the revision rows when a store opens (etcd restores its treeIndex
 * the same way). Rows come in revision order, so each key's writes come in order but scattered
 * among other keys': they are gathered per key in a hash table, then sorted by key into the index.
 *
 * <p>The table is a {@link KeyTable}: no entry or key wrapper object per key (with a HashMap those
 * were a million small objects that every young collection during the rebuild copied again), and
 * it becomes the applier's lookup table once the store is open.
 *
 * <p>The history may be read in parts at once, one instance per range of revisions; {@link #append}
 * joins a part onto the one before it.
 */
final class IndexRebuild {
  private final KeyTable table = new KeyTable(1 << 16);
  /** Live keys with a lease, as the rows read so far leave them. */
  private final Map<ByteString, Long> leased = new HashMap<>();
  private long rows;

  /**
   * Reads the key index back from every revision row of {@code backend} (the block cache is left
   * alone), adding each row's size to {@code bytes}. With more than one core the history is read
   * in two halves at once, the later one on a thread of its own, then joined: copying the rows out
   * of LevelDB is most of the time a large store takes to open. Rows at or below the compaction
   * revision are sparse (one per key at most), so the halves split the revisions after it.
   */
  static IndexRebuild read(Backend backend, long revision, long compacted, LongAdder bytes) {
    IndexRebuild lower = new IndexRebuild();
    if (Runtime.getRuntime().availableProcessors() < 2) {
      backend.scanRevisions(new ReadOptions().fillCache(false), 0, Long.MAX_VALUE, counted(lower, bytes));
      return lower;
    }
    long split = compacted + (revision - compacted) / 2;
    CompletableFuture<IndexRebuild> upper = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        IndexRebuild later = new IndexRebuild();
        backend.scanRevisions(new ReadOptions().fillCache(false), split + 1, Long.MAX_VALUE, counted(later, bytes));
        upper.complete(later);
      } catch (Throwable t) {
        upper.completeExceptionally(t);
      }
    }, "mvcc-index-rebuild");
    reader.start();
    backend.scanRevisions(new ReadOptions().fillCache(false), 0, split, counted(lower, bytes));
    try {
      lower.append(upper.join());
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    return lower;
  }

  /** Adds each row to the rebuilt index and its size to {@code bytes}. */
  private static BiConsumer<byte[], byte[]> counted(IndexRebuild into, LongAdder bytes) {
    return (k, v) -> {
      bytes.add(k.length + v.length);
      into.add(k, v);
    };
  }

  /** One revision row: key {@code 'r' + revision bytes [+ 't']}, value the stored KeyValue. */
  void add(byte[] rowKey, byte[] value) {
    Revision rev = Revision.fromBytes(rowKey, 1);
    boolean tombstone = Revision.isTombstone(rowKey, 1);
    IndexFields kv = IndexFields.parse(value);
    // rows come in revision order: the last one seen of a key says whether it is live with a lease
    if (kv.lease() != 0 && !tombstone) {
      leased.put(UnsafeByteOperations.unsafeWrap(kv.key()), kv.lease());
    } else if (!leased.isEmpty()) {
      leased.remove(UnsafeByteOperations.unsafeWrap(kv.key()));
    }
    KeyIndex history = table.historyOf(kv.key());
    if (tombstone) {
      history.append(rev, true, 0, 0, 0);
    } else {
      history.append(rev, false, kv.createRevision(), kv.version(), value.length);
    }
    rows++;
  }

  /** Joins {@code later}, which was read from rows that all come after this one's. */
  void append(IndexRebuild later) {
    later.table.forEach(history -> {
      KeyIndex joined = table.get(history.key());
      if (joined == null) {
        table.put(history);
        return;
      }
      for (KeyIndex.Version v : history.versions()) {
        joined.append(v);
      }
      if (!leased.isEmpty()) {
        // the key's last write is in the later part: whether it holds a lease is the later part's say
        leased.remove(UnsafeByteOperations.unsafeWrap(history.key()));
      }
    });
    leased.putAll(later.leased);
    rows += later.rows;
  }

  /** Every key's history in key order (see {@link KeySort}). */
  List<KeyIndex> sorted() {
    KeyIndex[] all = new KeyIndex[table.size()];
    int[] n = {0};
    table.forEach(history -> all[n[0]++] = history);
    return Arrays.asList(KeySort.sort(all));
  }

  /** Every key's history by key: the applier's lookup table from now on. */
  KeyTable table() {
    return table;
  }

  /** Every live key with a lease, key → lease id. */
  Map<ByteString, Long> leased() {
    return leased;
  }

  /** How many revision rows were read. */
  long rows() {
    return rows;
  }
}
