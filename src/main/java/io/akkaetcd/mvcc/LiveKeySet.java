package io.akkaetcd.mvcc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys live at one revision, as a persistent B+tree whose inner nodes know how many keys each
 * child holds: how many keys a range holds is two descents, O(log n), where etcd walks its whole
 * index to count (etcd #16510, the {@code count} of a limited or count_only Range).
 *
 * <p>Immutable: {@link #insert} and {@link #delete} return a new set that shares every node but one
 * root-to-leaf path (a few arrays of at most {@value #MAX} references), so the applier updates it
 * in O(log n) per created or deleted key while readers count on the set published with a revision.
 * Keys are etcd's byte order ({@link KeyOrder#BYTES}); arrays are never changed once in a set.
 *
 * <p>Invariants: a node holds at most {@value #MAX} entries and, unless it is the root, at least
 * {@value #MIN}; {@code seps[i]} is a lower bound of child {@code i + 1}'s keys and above every key
 * of child {@code i} (a delete may leave it below its child's smallest key, which routing allows).
 */
final class LiveKeySet {
  static final int MAX = 64;
  static final int MIN = MAX / 4;
  /** Leaves a bulk build fills: room for inserts before the first split. */
  private static final int FILL = MAX * 3 / 4;
  private static final byte[][] NO_KEYS = new byte[0][];

  static final LiveKeySet EMPTY = new LiveKeySet(new Leaf(NO_KEYS));

  private final Node root;

  private LiveKeySet(Node root) {
    this.root = root;
  }

  long size() {
    return root.count();
  }

  /** How many keys sort before {@code key}. */
  long rank(byte[] key) {
    return root.rank(key);
  }

  /** How many keys lie in [{@code from}, {@code to}). */
  long countBetween(byte[] from, byte[] to) {
    return KeyOrder.BYTES.compare(from, to) >= 0 ? 0 : rank(to) - rank(from);
  }

  boolean contains(byte[] key) {
    return rank(key) != rank(successor(key));
  }

  /** Adds {@code key}, which the set must not hold. */
  LiveKeySet insert(byte[] key) {
    Node r = root.insert(key);
    if (r.width() > MAX) {
      Node[] halves = new Node[2];
      byte[] sep = r.split(halves);
      r = new Inner(new byte[][] {sep}, halves);
    }
    return new LiveKeySet(r);
  }

  /** Removes {@code key}, which the set must hold. */
  LiveKeySet delete(byte[] key) {
    Node r = root.delete(key);
    while (r instanceof Inner in && in.kids.length == 1) {
      r = in.kids[0];
    }
    return new LiveKeySet(r);
  }

  /** A set of {@code sorted} (strictly increasing keys), built bottom-up in O(n). */
  static LiveKeySet ofSorted(List<byte[]> sorted) {
    List<Node> level = new ArrayList<>();
    List<byte[]> firsts = new ArrayList<>();
    for (int[] span : spans(sorted.size())) {
      level.add(new Leaf(sorted.subList(span[0], span[1]).toArray(NO_KEYS)));
      firsts.add(sorted.get(span[0]));
    }
    if (level.isEmpty()) {
      return EMPTY;
    }
    while (level.size() > 1) {
      List<Node> up = new ArrayList<>();
      List<byte[]> upFirsts = new ArrayList<>();
      for (int[] span : spans(level.size())) {
        Node[] kids = level.subList(span[0], span[1]).toArray(new Node[0]);
        byte[][] seps = firsts.subList(span[0] + 1, span[1]).toArray(NO_KEYS);
        up.add(new Inner(seps, kids));
        upFirsts.add(firsts.get(span[0]));
      }
      level = up;
      firsts = upFirsts;
    }
    return new LiveKeySet(level.get(0));
  }

  /** [from, to) spans cutting {@code n} entries into nodes of nearly equal width, about {@link #FILL}. */
  private static List<int[]> spans(int n) {
    List<int[]> out = new ArrayList<>();
    int nodes = (n + FILL - 1) / FILL;
    for (int i = 0; i < nodes; i++) {
      out.add(new int[] {(int) ((long) n * i / nodes), (int) ((long) n * (i + 1) / nodes)});
    }
    return out;
  }

  /** The smallest key after {@code key} in etcd's order: key + "\0". */
  private static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** Index of the first of {@code keys[0, n)} not below {@code key}. */
  private static int lowerBound(byte[][] keys, byte[] key) {
    int lo = 0;
    int hi = keys.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (KeyOrder.BYTES.compare(keys[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private abstract static sealed class Node permits Leaf, Inner {
    abstract long count();

    /** Entries: keys of a leaf, children of an inner node. */
    abstract int width();

    abstract long rank(byte[] key);

    /** This node with {@code key} added; may be one entry too wide (the parent splits it). */
    abstract Node insert(byte[] key);

    /** This node without {@code key}; may be too narrow (the parent merges it). */
    abstract Node delete(byte[] key);

    /** Cuts this node in two halves into {@code out}; returns the separator between them. */
    abstract byte[] split(Node[] out);

    /** This node and its right neighbour {@code right} of the same height as one node. */
    abstract Node join(byte[] sep, Node right);
  }

  private static final class Leaf extends Node {
    private final byte[][] keys;

    Leaf(byte[][] keys) {
      this.keys = keys;
    }

    @Override
    long count() {
      return keys.length;
    }

    @Override
    int width() {
      return keys.length;
    }

    @Override
    long rank(byte[] key) {
      return lowerBound(keys, key);
    }

    @Override
    Node insert(byte[] key) {
      int at = lowerBound(keys, key);
      byte[][] k = new byte[keys.length + 1][];
      System.arraycopy(keys, 0, k, 0, at);
      k[at] = key;
      System.arraycopy(keys, at, k, at + 1, keys.length - at);
      return new Leaf(k);
    }

    @Override
    Node delete(byte[] key) {
      int at = lowerBound(keys, key);
      if (at == keys.length || !Arrays.equals(keys[at], key)) {
        throw new IllegalStateException("deleting a key that is not in the set");
      }
      byte[][] k = new byte[keys.length - 1][];
      System.arraycopy(keys, 0, k, 0, at);
      System.arraycopy(keys, at + 1, k, at, keys.length - at - 1);
      return new Leaf(k);
    }

    @Override
    byte[] split(Node[] out) {
      int half = keys.length / 2;
      out[0] = new Leaf(Arrays.copyOfRange(keys, 0, half));
      out[1] = new Leaf(Arrays.copyOfRange(keys, half, keys.length));
      return keys[half];
    }

    @Override
    Node join(byte[] sep, Node right) {
      byte[][] r = ((Leaf) right).keys;
      byte[][] k = Arrays.copyOf(keys, keys.length + r.length);
      System.arraycopy(r, 0, k, keys.length, r.length);
      return new Leaf(k);
    }
  }

  private static final class Inner extends Node {
    private final byte[][] seps;
    private final Node[] kids;
    /** {@code counts[i]} = {@code kids[i].count()}, side by side so a rank reads one array. */
    private final long[] counts;
    private final long count;

    Inner(byte[][] seps, Node[] kids) {
      this.seps = seps;
      this.kids = kids;
      this.counts = new long[kids.length];
      long c = 0;
      for (int i = 0; i < kids.length; i++) {
        counts[i] = kids[i].count();
        c += counts[i];
      }
      this.count = c;
    }

    @Override
    long count() {
      return count;
    }

    @Override
    int width() {
      return kids.length;
    }

    /** The child whose keys {@code key} falls among: the number of separators at or below it. */
    private int route(byte[] key) {
      int lo = 0;
      int hi = seps.length;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (KeyOrder.BYTES.compare(seps[mid], key) <= 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    @Override
    long rank(byte[] key) {
      int i = route(key);
      long before = 0;
      for (int j = 0; j < i; j++) {
        before += counts[j];
      }
      return before + kids[i].rank(key);
    }

    @Override
    Node insert(byte[] key) {
      int i = route(key);
      Node kid = kids[i].insert(key);
      if (kid.width() <= MAX) {
        Node[] k = kids.clone();
        k[i] = kid;
        return new Inner(seps, k);
      }
      Node[] halves = new Node[2];
      byte[] sep = kid.split(halves);
      Node[] k = new Node[kids.length + 1];
      System.arraycopy(kids, 0, k, 0, i);
      k[i] = halves[0];
      k[i + 1] = halves[1];
      System.arraycopy(kids, i + 1, k, i + 2, kids.length - i - 1);
      byte[][] s = new byte[seps.length + 1][];
      System.arraycopy(seps, 0, s, 0, i);
      s[i] = sep;
      System.arraycopy(seps, i, s, i + 1, seps.length - i);
      return new Inner(s, k);
    }

    @Override
    Node delete(byte[] key) {
      int i = route(key);
      Node kid = kids[i].delete(key);
      if (kid.width() >= MIN || kids.length == 1) {
        Node[] k = kids.clone();
        k[i] = kid;
        return new Inner(seps, k);
      }
      // Too narrow: joined with a neighbour, and cut in two again if that is too wide.
      int left = i > 0 ? i - 1 : i;
      Node l = left == i ? kid : kids[left];
      Node r = left == i ? kids[i + 1] : kid;
      Node joined = l.join(seps[left], r);
      List<Node> k = new ArrayList<>(Arrays.asList(kids));
      List<byte[]> s = new ArrayList<>(Arrays.asList(seps));
      if (joined.width() > MAX) {
        Node[] halves = new Node[2];
        s.set(left, joined.split(halves));
        k.set(left, halves[0]);
        k.set(left + 1, halves[1]);
      } else {
        k.set(left, joined);
        k.remove(left + 1);
        s.remove(left);
      }
      return new Inner(s.toArray(NO_KEYS), k.toArray(new Node[0]));
    }

    @Override
    byte[] split(Node[] out) {
      int half = kids.length / 2;
      out[0] = new Inner(Arrays.copyOfRange(seps, 0, half - 1), Arrays.copyOfRange(kids, 0, half));
      out[1] = new Inner(Arrays.copyOfRange(seps, half, seps.length), Arrays.copyOfRange(kids, half, kids.length));
      return seps[half - 1];
    }

    @Override
    Node join(byte[] sep, Node right) {
      Inner r = (Inner) right;
      Node[] k = Arrays.copyOf(kids, kids.length + r.kids.length);
      System.arraycopy(r.kids, 0, k, kids.length, r.kids.length);
      byte[][] s = Arrays.copyOf(seps, seps.length + 1 + r.seps.length);
      s[seps.length] = sep;
      System.arraycopy(r.seps, 0, s, seps.length + 1, r.seps.length);
      return new Inner(s, k);
    }
  }
}
