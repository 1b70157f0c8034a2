package io.akkaetcd.mvcc;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Histories already in key order, seen as the sorted map that {@link ConcurrentSkipListMap}'s
 * copy constructor builds from in one linear pass (it reads only the comparator and the entries in
 * order); putting a million keys one by one walked the skip list from its head for each. A view
 * for that constructor only: the other sorted-map operations are not supported.
 */
final class SortedHistories extends AbstractMap<byte[], KeyIndex> implements SortedMap<byte[], KeyIndex> {
  private final List<KeyIndex> histories;

  private SortedHistories(List<KeyIndex> histories) {
    this.histories = histories;
  }

  /** A skip list of {@code histories}, which are in {@link KeyOrder#BYTES} order of their keys, built in O(n). */
  static ConcurrentSkipListMap<byte[], KeyIndex> skipList(List<KeyIndex> histories) {
    return new ConcurrentSkipListMap<>(new SortedHistories(histories));
  }

  @Override
  public Comparator<? super byte[]> comparator() {
    return KeyOrder.BYTES;
  }

  @Override
  public Set<Map.Entry<byte[], KeyIndex>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Map.Entry<byte[], KeyIndex>> iterator() {
        Iterator<KeyIndex> it = histories.iterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Map.Entry<byte[], KeyIndex> next() {
            KeyIndex h = it.next();
            return new SimpleImmutableEntry<>(h.key(), h);
          }
        };
      }

      @Override
      public int size() {
        return histories.size();
      }
    };
  }

  @Override
  public SortedMap<byte[], KeyIndex> subMap(byte[] fromKey, byte[] toKey) {
    throw new UnsupportedOperationException();
  }

  @Override
  public SortedMap<byte[], KeyIndex> headMap(byte[] toKey) {
    throw new UnsupportedOperationException();
  }

  @Override
  public SortedMap<byte[], KeyIndex> tailMap(byte[] fromKey) {
    throw new UnsupportedOperationException();
  }

  @Override
  public byte[] firstKey() {
    throw new UnsupportedOperationException();
  }

  @Override
  public byte[] lastKey() {
    throw new UnsupportedOperationException();
  }
}
