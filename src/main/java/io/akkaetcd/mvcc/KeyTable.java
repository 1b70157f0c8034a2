package io.akkaetcd.mvcc;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Key → {@link KeyIndex} by hash: how the applier finds the history a write appends to, and how
 * the index is gathered when a store opens ({@link IndexRebuild}). The key index proper, the
 * ordered skip list that ranges walk, holds the same histories; finding one key there walks some
 * twenty nodes scattered over the heap, each a cache miss: with 100,000 keys that was four tenths
 * of the applier's CPU under 64 writing clients, and this table took a fifth off the server's CPU
 * a put (loadtest/RESULTS.md, 2026-11-25, afternoon).
 *
 * <p>Open addressing with linear probing, at most half full, over one array of the histories
 * themselves (a history knows its key, so there is no entry or key object per key) and one of their
 * keys' hashes, slot for slot: 8 to 12 bytes of arrays a slot. A lookup reads a slot and its hash,
 * and the history and its key only where the hash matches; growing never reads a key.
 *
 * <p>Not thread-safe: one thread owns a table at a time (the rebuild's while a store opens, then
 * the applier's).
 */
final class KeyTable {
  private KeyIndex[] slots;
  /** {@code hashes[i]} is the hash of {@code slots[i]}'s key (anything where the slot is empty). */
  private int[] hashes;
  private int size;

  /** Room for {@code capacity} slots, rounded up to a power of two (probing masks the hash). */
  KeyTable(int capacity) {
    slots = new KeyIndex[Integer.highestOneBit(Math.max(2, capacity - 1)) << 1];
    hashes = new int[slots.length];
  }

  int size() {
    return size;
  }

  /** The history of {@code key}, or null. */
  KeyIndex get(byte[] key) {
    return slots[slot(key, hash(key))];
  }

  /** The history of {@code key}; an empty one, added, when it has none. */
  KeyIndex historyOf(byte[] key) {
    int h = hash(key);
    int i = slot(key, h);
    KeyIndex history = slots[i];
    if (history == null) {
      history = new KeyIndex(key);
      add(i, h, history);
    }
    return history;
  }

  /** Puts {@code history} in the place of its key's, or adds it. */
  void put(KeyIndex history) {
    int h = hash(history.key());
    int i = slot(history.key(), h);
    if (slots[i] != null) {
      slots[i] = history;
    } else {
      add(i, h, history);
    }
  }

  /**
   * Removes the history of {@code key}, if any. The entries after it in its probe run that could
   * no longer be found past the gap move back into it (deletion for linear probing, Knuth 6.4
   * Algorithm R): no tombstones, so lookups never slow down with removals.
   */
  void remove(byte[] key) {
    int mask = slots.length - 1;
    int gap = slot(key, hash(key));
    if (slots[gap] == null) {
      return;
    }
    slots[gap] = null;
    size--;
    for (int j = (gap + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
      int home = hashes[j] & mask;
      // j may fill the gap if the gap is on its probe path: from home to j, cyclically
      if (((j - home) & mask) >= ((j - gap) & mask)) {
        slots[gap] = slots[j];
        hashes[gap] = hashes[j];
        slots[j] = null;
        gap = j;
      }
    }
  }

  void forEach(Consumer<KeyIndex> action) {
    for (KeyIndex history : slots) {
      if (history != null) {
        action.accept(history);
      }
    }
  }

  /** The slot holding {@code key}'s history, or the empty slot where it would go. */
  private int slot(byte[] key, int hash) {
    int mask = slots.length - 1;
    int i = hash & mask;
    for (KeyIndex h = slots[i]; h != null && (hashes[i] != hash || !Arrays.equals(h.key(), key)); h = slots[i]) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void add(int i, int hash, KeyIndex history) {
    slots[i] = history;
    hashes[i] = hash;
    if (++size * 2 > slots.length) {
      grow();
    }
  }

  private void grow() {
    KeyIndex[] old = slots;
    int[] oldHashes = hashes;
    slots = new KeyIndex[old.length * 2];
    hashes = new int[slots.length];
    int mask = slots.length - 1;
    for (int j = 0; j < old.length; j++) {
      if (old[j] != null) {
        int i = oldHashes[j] & mask;
        while (slots[i] != null) {
          i = (i + 1) & mask;
        }
        slots[i] = old[j];
        hashes[i] = oldHashes[j];
      }
    }
  }

  /**
   * A well-mixed hash of a key: Arrays' and ByteString's own (31 * h + b) collide heavily on short
   * binary keys such as etcd benchmark's, and linear probing needs the low bits to spread.
   */
  private static int hash(byte[] key) {
    long h = 0x9E3779B97F4A7C15L ^ key.length;
    for (byte b : key) {
      h = (h ^ (b & 0xff)) * 0xBF58476D1CE4E5B9L;
      h ^= h >>> 29;
    }
    return (int) (h ^ (h >>> 32));
  }
}
