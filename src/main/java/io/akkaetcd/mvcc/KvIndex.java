package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The in-memory key index (etcd's treeIndex) and the two revisions that say which part of it
 * readers may use.
 *
 * <p>Key → {@link KeyIndex} (the key's history, which the applier appends to in place and readers
 * read without locks), in a concurrent skip list. Its keys are bare byte arrays in etcd's order
 * ({@link KeyOrder#BYTES}), never changed once in the map: a ByteString around each would add 24
 * bytes to every key (a million keys are 1M entries). The applier finds a key's history by hash,
 * in a {@link KeyTable} of the same histories, and walks the skip list only to add a key or to
 * range.
 *
 * <p>Invariants: the skip list and the table hold the same key → history pairs;
 * {@code compactRevision <= currentRevision}; readers look only at revisions up to
 * {@link #currentRevision}, which moves after a batch is on disk, and not below
 * {@link #compactRevision}, which moves before the index shrinks.
 *
 * <p>Readers (any thread) use {@link #range} and {@link #get}; the table, the revisions' setters,
 * {@link #compact} and {@link #load} are the applier's (and the opening thread's, before anyone
 * else sees the store).
 */
final class KvIndex {
  private static final ByteString NUL = ByteString.copyFrom(new byte[] {0});

  private final ConcurrentSkipListMap<byte[], KeyIndex> index = new ConcurrentSkipListMap<>(KeyOrder.BYTES);
  /** Applier-confined; replaced only by {@link #load}. */
  private KeyTable table;
  private volatile long currentRevision;
  private volatile long compactRevision;
  /** Live keys up to the newest write (applier's), and as of {@link #currentRevision} (readers'). */
  private long liveKeys;
  private volatile long publishedLiveKeys;

  long currentRevision() {
    return currentRevision;
  }

  /** Publishes a revision whose batch is on disk. */
  void publishRevision(long revision) {
    publishedLiveKeys = liveKeys;
    currentRevision = revision;
  }

  /** etcd's keysGauge: live keys as of the published revision, kept as writes go (not counted per read). */
  long liveKeys() {
    return publishedLiveKeys;
  }

  /** A put made {@code history} live (a new key or a new generation): etcd's keyIndex.put Inc. */
  void keyCreated() {
    liveKeys++;
  }

  /** A delete ended a live generation: etcd's keyIndex.tombstone Dec. */
  void keyDeleted() {
    liveKeys--;
  }

  long compactRevision() {
    return compactRevision;
  }

  /** Publishes a compaction: before the index shrinks, so a reader below it re-checks and answers COMPACTED. */
  void publishCompaction(long revision) {
    compactRevision = revision;
  }

  /** The histories by hash, for the applier's writes. */
  KeyTable table() {
    return table;
  }

  /** The history of {@code key}, or null. */
  KeyIndex get(byte[] key) {
    return index.get(key);
  }

  /** Adds the history of a key new to the index (its first write is in it already). */
  void add(KeyIndex history) {
    index.put(history.key(), history);
  }

  /** The keys in range as etcd reads rangeEnd: empty = one key, "\0" = every key from key on. */
  NavigableMap<byte[], KeyIndex> range(ByteString key, ByteString rangeEnd) {
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

  /**
   * Compacts every history at {@code rev}: a history that changes is replaced (readers keep the
   * one they hold), an emptied one is dropped, in the skip list and the table alike.
   */
  void compact(long rev) {
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

  /** Drops every history (a replaced store is about to be read back). */
  void clear() {
    index.clear();
    liveKeys = 0;
  }

  /** Takes the histories read back from disk into an empty index. */
  void load(IndexRebuild rebuilt) {
    rebuilt.fill(index);
    table = rebuilt.table();
    liveKeys = index.values().stream().filter(KeyIndex::liveNow).count();
    publishedLiveKeys = liveKeys;
  }
}
