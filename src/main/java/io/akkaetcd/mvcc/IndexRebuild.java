package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The key index read back from the revision rows when a store opens (etcd restores its treeIndex
 * the same way). Rows come in revision order, so each key's writes come in order but scattered
 * among other keys': they are gathered per key in a hash map, then sorted by key into the index.
 *
 * <p>The history may be read in parts at once, one instance per range of revisions; {@link #append}
 * joins a part onto the one before it.
 */
final class IndexRebuild {
  private final Map<MixedKey, KeyIndex> byKey = new HashMap<>(1 << 16);
  /** Live keys with a lease, as the rows read so far leave them. */
  private final Map<ByteString, Long> leased = new HashMap<>();
  private long rows;

  /** One revision row: key {@code 'r' + revision bytes [+ 't']}, value the stored KeyValue. */
  void add(byte[] rowKey, byte[] value) {
    Revision rev = Revision.fromBytes(rowKey, 1);
    boolean tombstone = Revision.isTombstone(rowKey, 1);
    IndexFields kv = IndexFields.parse(value);
    MixedKey key = new MixedKey(kv.key());
    KeyIndex ki = byKey.getOrDefault(key, KeyIndex.EMPTY);
    // rows come in revision order: the last one seen of a key says whether it is live with a lease
    if (kv.lease() != 0 && !tombstone) {
      leased.put(UnsafeByteOperations.unsafeWrap(kv.key()), kv.lease());
    } else if (!leased.isEmpty()) {
      leased.remove(UnsafeByteOperations.unsafeWrap(kv.key()));
    }
    byKey.put(key, ki.append(tombstone
        ? new KeyIndex.Version(rev, true, 0, 0)
        : new KeyIndex.Version(rev, false, kv.createRevision(), kv.version())));
    rows++;
  }

  /** Joins {@code later}, which was read from rows that all come after this one's. */
  void append(IndexRebuild later) {
    for (Map.Entry<MixedKey, KeyIndex> e : later.byKey.entrySet()) {
      KeyIndex earlier = byKey.get(e.getKey());
      if (earlier == null) {
        byKey.put(e.getKey(), e.getValue());
        continue;
      }
      KeyIndex joined = earlier;
      for (KeyIndex.Version v : e.getValue().versions()) {
        joined = joined.append(v);
      }
      byKey.put(e.getKey(), joined);
      if (!leased.isEmpty()) {
        // the key's last write is in the later part: whether it holds a lease is the later part's say
        leased.remove(UnsafeByteOperations.unsafeWrap(e.getKey().key()));
      }
    }
    leased.putAll(later.leased);
    rows += later.rows;
  }

  /**
   * Puts every key with its history into {@code index}, in key order (each insert then walks a warm
   * path). The sort compares each key's first eight bytes as one number held in the sorted entry
   * itself, and the key arrays only on a tie: a million keys scattered over the heap made the sort
   * a chain of cache misses.
   */
  void fill(Map<byte[], KeyIndex> index) {
    Sorted[] all = new Sorted[byKey.size()];
    int i = 0;
    for (Map.Entry<MixedKey, KeyIndex> e : byKey.entrySet()) {
      all[i++] = new Sorted(prefix(e.getKey().key()), e.getKey().key(), e.getValue());
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
   * A key with a well-mixed hash: ByteString's and Arrays' own hash (31 * h + b) collide heavily
   * on short binary keys such as etcd benchmark's, and colliding bins turned into slow trees.
   */
  private record MixedKey(byte[] key, int hash) {
    MixedKey(byte[] key) {
      this(key, mix(key));
    }

    private static int mix(byte[] key) {
      long h = 0x9E3779B97F4A7C15L ^ key.length;
      for (byte b : key) {
        h = (h ^ (b & 0xff)) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
      }
      return (int) (h ^ (h >>> 32));
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof MixedKey m && m.hash == hash && Arrays.equals(m.key, key);
    }
  }
}
