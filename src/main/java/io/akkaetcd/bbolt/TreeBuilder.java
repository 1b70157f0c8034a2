package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds one bucket's B+tree bottom-up from keys added in strictly increasing order: leaves are
 * packed full and written as soon as the next pair does not fit, each written page adds its first
 * key to the level above. Memory is one open page per level (O(depth × page size)), except that a
 * single pair larger than a page is held whole while its overflow page is written. Keys and values
 * are held as given (no copy) and copied once, into the page that is written.
 */
final class TreeBuilder {
  private record Element(ByteString key, ByteString value, long child, int flags) {
    int size() {
      return BboltFormat.ELEMENT + key.size() + (value == null ? 0 : value.size());
    }
  }

  private static final class Level {
    final List<Element> open = new ArrayList<>();
    int bytes = BboltFormat.PAGE_HEADER;
    int written;
  }

  private final PageOut out;
  private final List<Level> levels = new ArrayList<>();

  TreeBuilder(PageOut out) {
    this.out = out;
    levels.add(new Level());
  }

  /** Adds a leaf pair; {@code flags} is {@link BboltFormat#BUCKET_LEAF} for a sub-bucket header. */
  void add(ByteString key, ByteString value, int flags) throws IOException {
    add(0, new Element(key, value, 0, flags));
  }

  private void add(int depth, Element e) throws IOException {
    Level level = levels.get(depth);
    if (!level.open.isEmpty() && level.bytes + e.size() > BboltFormat.PAGE_SIZE) {
      flush(depth);
    }
    level.open.add(e);
    level.bytes += e.size();
  }

  private void flush(int depth) throws IOException {
    Level level = levels.get(depth);
    ByteString firstKey = level.open.get(0).key();
    long id = writePage(depth == 0, level);
    level.open.clear();
    level.bytes = BboltFormat.PAGE_HEADER;
    level.written++;
    if (depth + 1 == levels.size()) {
      levels.add(new Level());
    }
    add(depth + 1, new Element(firstKey, null, id, 0));
  }

  /** Writes what is open on every level and returns the root page id (an empty leaf if no pairs). */
  long finish() throws IOException {
    for (int depth = 0; ; depth++) {
      Level level = levels.get(depth);
      boolean top = depth + 1 == levels.size() && level.written == 0;
      if (top && depth > 0 && level.open.size() == 1) {
        return level.open.get(0).child(); // the only child is the root: no one-element branch
      }
      if (top) {
        return writePage(depth == 0, level);
      }
      if (!level.open.isEmpty()) {
        flush(depth);
      }
    }
  }

  private long writePage(boolean leaf, Level level) throws IOException {
    return out.counting()
        ? out.skip(BboltFormat.pagesFor(level.bytes))
        : out.write(encode(leaf, level.open, level.bytes));
  }

  private static byte[] encode(boolean leaf, List<Element> elements, int bytes) {
    byte[] page = new byte[BboltFormat.pagesFor(bytes) * BboltFormat.PAGE_SIZE];
    ByteBuffer b = BboltFormat.le(page);
    b.putShort(8, (short) (leaf ? BboltFormat.LEAF : BboltFormat.BRANCH));
    b.putShort(10, (short) elements.size());
    b.putInt(12, page.length / BboltFormat.PAGE_SIZE - 1);
    int data = BboltFormat.PAGE_HEADER + elements.size() * BboltFormat.ELEMENT;
    for (int i = 0; i < elements.size(); i++) {
      Element e = elements.get(i);
      int at = BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT;
      if (leaf) {
        b.putInt(at, e.flags()).putInt(at + 4, data - at).putInt(at + 8, e.key().size());
        b.putInt(at + 12, e.value().size());
      } else {
        b.putInt(at, data - at).putInt(at + 4, e.key().size()).putLong(at + 8, e.child());
      }
      e.key().copyTo(page, data);
      data += e.key().size();
      if (leaf) {
        e.value().copyTo(page, data);
        data += e.value().size();
      }
    }
    return page;
  }
}
