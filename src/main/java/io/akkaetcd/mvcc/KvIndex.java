package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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

  /** Replaced only by {@link #load}, before readers see the store or while an install holds them off. */
  private volatile ConcurrentSkipListMap<byte[], KeyIndex> index = new ConcurrentSkipListMap<>(KeyOrder.BYTES);
  /** Applier-confined; replaced only by {@link #load}. */
  private KeyTable table;
  private volatile long currentRevision;
  private volatile long compactRevision;
  /** Live keys up to the newest write (applier's), and as of a published revision (readers'). */
  private LiveKeySet liveKeys = LiveKeySet.EMPTY;
  private volatile Published published = new Published(0, LiveKeySet.EMPTY);

  /** The live keys as of {@code revision}: set before {@link #currentRevision} moves to it. */
  private record Published(long revision, LiveKeySet keys) {}

  long currentRevision() {
    return currentRevision;
  }

  /** Publishes a revision whose batch is on disk. */
  void publishRevision(long revision) {
    published = new Published(revision, liveKeys);
    currentRevision = revision;
  }

  /** etcd's keysGauge: live keys as of the published revision, kept as writes go (not counted per read). */
  long liveKeys() {
    return published.keys().size();
  }

  /** A put made {@code key} live (a new key or a new generation): etcd's keyIndex.put Inc. */
  void keyCreated(byte[] key) {
    liveKeys = liveKeys.insert(key);
  }

  /** A delete ended {@code key}'s live generation: etcd's keyIndex.tombstone Dec. */
  void keyDeleted(byte[] key) {
    liveKeys = liveKeys.delete(key);
  }

  /**
   * The live keys at {@code rev} if a reader may count on them, else null (walk the histories):
   * only the published revision's set is kept, older revisions (time travel) have none.
   */
  LiveKeySet liveKeysAt(long rev) {
    Published p = published;
    return p.revision() == rev ? p.keys() : null;
  }

  /** The live keys after the newest write: the applier's own reads. */
  LiveKeySet liveKeysNow() {
    return liveKeys;
  }

  /** How many of {@code live} lie in range, as {@link #range} reads it: O(log n), no walk. */
  static long count(LiveKeySet live, ByteString key, ByteString rangeEnd) {
    byte[] from = key.toByteArray();
    if (rangeEnd.isEmpty()) {
      return live.contains(from) ? 1 : 0;
    }
    if (rangeEnd.equals(NUL)) {
      return live.size() - live.rank(from);
    }
    return live.countBetween(from, rangeEnd.toByteArray());
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
    liveKeys = LiveKeySet.EMPTY;
  }

  /** Takes the histories read back from disk into an empty index. */
  void load(IndexRebuild rebuilt) {
    List<KeyIndex> sorted = rebuilt.sorted();
    index = SortedHistories.skipList(sorted);
    table = rebuilt.table();
    List<byte[]> live = new ArrayList<>(sorted.size());
    for (KeyIndex history : sorted) {
      if (history.liveNow()) {
        live.add(history.key());
      }
    }
    liveKeys = LiveKeySet.ofSorted(live);
  }
}
