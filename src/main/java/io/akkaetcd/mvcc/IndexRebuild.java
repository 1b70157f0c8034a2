package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The key index read back from the revision rows when a store opens (etcd restores its treeIndex
 * the same way). Rows come in revision order, so each key's writes come in order but scattered
 * among other keys': they are gathered per key in a hash table, then sorted by key into the index.
 *
 * <p>The table is open addressing over parallel arrays (linear probing, at most half full): no
 * entry or key wrapper object per key. With a HashMap those were a million small objects that
 * every young collection during the rebuild copied again.
 *
 * <p>The history may be read in parts at once, one instance per range of revisions; {@link #append}
 * joins a part onto the one before it.
 */
final class IndexRebuild {
  private byte[][] keys = new byte[1 << 16][];
  private KeyIndex[] histories = new KeyIndex[1 << 16];
  private int[] hashes = new int[1 << 16];
  private int size;
  /** Live keys with a lease, as the rows read so far leave them. */
  private final Map<ByteString, Long> leased = new HashMap<>();
  private long rows;

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
    int hash = mix(kv.key());
    int i = slot(kv.key(), hash);
    KeyIndex history = keys[i] == null ? new KeyIndex() : histories[i];
    history = tombstone
        ? history.append(rev, true, 0, 0)
        : history.append(rev, false, kv.createRevision(), kv.version());
    put(i, kv.key(), hash, history);
    rows++;
  }

  /** Joins {@code later}, which was read from rows that all come after this one's. */
  void append(IndexRebuild later) {
    for (int j = 0; j < later.keys.length; j++) {
      byte[] key = later.keys[j];
      if (key == null) {
        continue;
      }
      int i = slot(key, later.hashes[j]);
      KeyIndex history = later.histories[j];
      if (keys[i] != null) {
        KeyIndex joined = histories[i];
        for (KeyIndex.Version v : history.versions()) {
          joined = joined.append(v);
        }
        history = joined;
        if (!leased.isEmpty()) {
          // the key's last write is in the later part: whether it holds a lease is the later part's say
          leased.remove(UnsafeByteOperations.unsafeWrap(key));
        }
      }
      put(i, key, later.hashes[j], history);
    }
    leased.putAll(later.leased);
    rows += later.rows;
  }

  /** The slot that holds {@code key}, or the empty one where it goes. */
  private int slot(byte[] key, int hash) {
    int mask = keys.length - 1;
    int i = hash & mask;
    while (keys[i] != null && (hashes[i] != hash || !Arrays.equals(keys[i], key))) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void put(int i, byte[] key, int hash, KeyIndex history) {
    histories[i] = history;
    if (keys[i] != null) {
      return;
    }
    keys[i] = key;
    hashes[i] = hash;
    if (++size * 2 > keys.length) {
      grow();
    }
  }

  private void grow() {
    byte[][] oldKeys = keys;
    KeyIndex[] oldHistories = histories;
    int[] oldHashes = hashes;
    keys = new byte[oldKeys.length * 2][];
    histories = new KeyIndex[keys.length];
    hashes = new int[keys.length];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldKeys[j] != null) {
        int i = oldHashes[j] & mask;
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        histories[i] = oldHistories[j];
        hashes[i] = oldHashes[j];
      }
    }
  }

  /**
   * Puts every key with its history into {@code index}, in key order (each insert then walks a warm
   * path). The sort compares each key's first eight bytes as one number held in the sorted entry
   * itself, and the key arrays only on a tie: a million keys scattered over the heap made the sort
   * a chain of cache misses.
   */
  void fill(Map<byte[], KeyIndex> index) {
    Sorted[] all = new Sorted[size];
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != null) {
        all[n++] = new Sorted(prefix(keys[i]), keys[i], histories[i]);
      }
    }
    Arrays.parallelSort(all, (a, b) -> {
      int c = Long.compareUnsigned(a.prefix(), b.prefix());
      return c != 0 ? c : KeyOrder.BYTES.compare(a.key(), b.key());
    });
    for (Sorted s : all) {
      index.put(s.key(), s.history());
    }
  }

  private record Sorted(long prefix, byte[] key, KeyIndex history) {}

  /** The first eight bytes, big-endian, zero-padded: ordered as unsigned longs, they order keys as etcd does or tie. */
  private static long prefix(byte[] key) {
    long p = 0;
    for (int i = 0; i < 8; i++) {
      p = (p << 8) | (i < key.length ? key[i] & 0xff : 0);
    }
    return p;
  }

  /** Every live key with a lease, key → lease id. */
  Map<ByteString, Long> leased() {
    return leased;
  }

  /** How many revision rows were read. */
  long rows() {
    return rows;
  }

  /**
   * A well-mixed hash of a key: Arrays' and ByteString's own (31 * h + b) collide heavily on short
   * binary keys such as etcd benchmark's, and linear probing needs the low bits to spread.
   */
  private static int mix(byte[] key) {
    long h = 0x9E3779B97F4A7C15L ^ key.length;
    for (byte b : key) {
      h = (h ^ (b & 0xff)) * 0xBF58476D1CE4E5B9L;
      h ^= h >>> 29;
    }
    return (int) (h ^ (h >>> 32));
  }
}
