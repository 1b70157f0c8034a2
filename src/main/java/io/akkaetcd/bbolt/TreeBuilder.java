package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds one bucket's B+tree bottom-up from keys added in strictly increasing order: leaves are
 * packed full and written as soon as the next pair does not fit, each written page adds its first
 * key to the level above. Memory is one open page per level (O(depth × page size)), except that a
 * single pair larger than a page is held whole while its overflow page is written. Keys and values
 * are held as given (no copy) and copied once, into the page that is written; in the layout pass
 * ({@link PageOut#counting()}) only sizes count, and a pair may come as its sizes alone.
 */
final class TreeBuilder {
  /** The open page of one level: parallel arrays reused from page to page (no object per element). */
  private static final class Level {
    ByteString[] keys = new ByteString[64];
    ByteString[] values = new ByteString[64];
    long[] children = new long[64];
    int[] flags = new int[64];
    int count;
    /** The size of the first element's key: what the level above adds for this page. */
    int firstKeySize;
    int bytes = BboltFormat.PAGE_HEADER;
    int written;

    /**
     * Adds an element of {@code size} bytes whose key has {@code keySize}; without {@code keep}
     * only a first element's parts are held (its key may then be null: sizes alone).
     */
    void add(ByteString key, int keySize, ByteString value, long child, int flag, int size, boolean keep) {
      if (count == keys.length) {
        keys = Arrays.copyOf(keys, count * 2);
        values = Arrays.copyOf(values, count * 2);
        children = Arrays.copyOf(children, count * 2);
        flags = Arrays.copyOf(flags, count * 2);
      }
      if (count == 0) {
        firstKeySize = keySize;
      }
      if (keep || count == 0) {
        keys[count] = key;
        values[count] = value;
        children[count] = child;
        flags[count] = flag;
      }
      count++;
      bytes += size;
    }

    void clear() {
      Arrays.fill(keys, 0, count, null);
      Arrays.fill(values, 0, count, null);
      count = 0;
      bytes = BboltFormat.PAGE_HEADER;
    }
  }

  private final PageOut out;
  private final List<Level> levels = new ArrayList<>();

  TreeBuilder(PageOut out) {
    this.out = out;
    levels.add(new Level());
  }

  /** Adds a leaf pair; {@code flags} is {@link BboltFormat#BUCKET_LEAF} for a sub-bucket header. */
  void add(ByteString key, ByteString value, int flags) throws IOException {
    add(0, key, key.size(), value, value.size(), 0, flags);
  }

  /** Adds a leaf pair known by its sizes alone: the layout pass only ({@link PageOut#counting()}). */
  void addSizes(int keySize, int valueSize) throws IOException {
    if (!out.counting()) {
      throw new IllegalStateException("a pair without its bytes can only be laid out, not written");
    }
    add(0, null, keySize, null, valueSize, 0, 0);
  }

  /** {@code valueSize} is 0 in a branch, whose elements have no value. */
  private void add(int depth, ByteString key, int keySize, ByteString value, int valueSize, long child, int flags)
      throws IOException {
    Level level = levels.get(depth);
    int size = BboltFormat.ELEMENT + keySize + valueSize;
    if (level.count > 0 && level.bytes + size > BboltFormat.PAGE_SIZE) {
      flush(depth);
    }
    level.add(key, keySize, value, child, flags, size, !out.counting());
  }

  private void flush(int depth) throws IOException {
    Level level = levels.get(depth);
    ByteString firstKey = level.keys[0];
    int firstKeySize = level.firstKeySize;
    long id = writePage(depth == 0, level);
    level.clear();
    level.written++;
    if (depth + 1 == levels.size()) {
      levels.add(new Level());
    }
    add(depth + 1, firstKey, firstKeySize, null, 0, id, 0);
  }

  /** Writes what is open on every level and returns the root page id (an empty leaf if no pairs). */
  long finish() throws IOException {
    for (int depth = 0; ; depth++) {
      Level level = levels.get(depth);
      boolean top = depth + 1 == levels.size() && level.written == 0;
      if (top && depth > 0 && level.count == 1) {
        return level.children[0]; // the only child is the root: no one-element branch
      }
      if (top) {
        return writePage(depth == 0, level);
      }
      if (level.count > 0) {
        flush(depth);
      }
    }
  }

  private long writePage(boolean leaf, Level level) throws IOException {
    int pages = BboltFormat.pagesFor(level.bytes);
    return out.counting() ? out.skip(pages) : out.write(encode(leaf, level, out.page(pages)), pages);
  }

  /** Encodes the open page into {@code page} (zeroed, {@code pages} long) and returns it. */
  private static byte[] encode(boolean leaf, Level level, byte[] page) {
    ByteBuffer b = BboltFormat.le(page);
    int n = level.count;
    b.putShort(8, (short) (leaf ? BboltFormat.LEAF : BboltFormat.BRANCH));
    b.putShort(10, (short) n);
    b.putInt(12, BboltFormat.pagesFor(level.bytes) - 1);
    int data = BboltFormat.PAGE_HEADER + n * BboltFormat.ELEMENT;
    for (int i = 0; i < n; i++) {
      ByteString key = level.keys[i];
      int at = BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT;
      if (leaf) {
        ByteString value = level.values[i];
        b.putInt(at, level.flags[i]).putInt(at + 4, data - at).putInt(at + 8, key.size());
        b.putInt(at + 12, value.size());
        key.copyTo(page, data);
        data += key.size();
        value.copyTo(page, data);
        data += value.size();
      } else {
        b.putInt(at, data - at).putInt(at + 4, key.size()).putLong(at + 8, level.children[i]);
        key.copyTo(page, data);
        data += key.size();
      }
    }
    return page;
  }
}
