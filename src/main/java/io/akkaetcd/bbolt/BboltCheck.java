package io.akkaetcd.bbolt;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * bbolt's {@code tx.Check()} as etcd 3.4's etcdctl runs it before {@code snapshot status} (bbolt
 * v1.3.6 tx.go): no page freed twice; every page of every regular bucket (inline ones are skipped)
 * in bounds, referenced once, not free, and a branch or leaf; every page below the high-water mark
 * reachable or free. The errors are bbolt's own lines, in its order.
 */
final class BboltCheck {
  private final BboltReader reader;
  private final long highWater;
  private final Set<Long> freed = new HashSet<>();
  private final Set<Long> reachable = new HashSet<>();
  private final List<String> errors = new ArrayList<>();

  private BboltCheck(BboltReader reader) {
    this.reader = reader;
    this.highWater = reader.meta().highWater();
  }

  /** bbolt's error lines for the image {@code reader} opened; empty when the image is consistent. */
  static List<String> check(BboltReader reader) throws IOException {
    BboltCheck c = new BboltCheck(reader);
    c.run();
    return List.copyOf(c.errors);
  }

  private void run() throws IOException {
    long freelist = reader.meta().freelist();
    // Without a stored freelist bbolt frees exactly the unreachable pages, so nothing below is
    // reported as unreachable or reachable-freed (db.freepages).
    boolean stored = freelist != BboltFormat.NO_FREELIST;
    reachable.add(0L);
    reachable.add(1L);
    if (stored) {
      readFreelist(freelist);
    }
    bucket(reader.meta().root());
    if (stored) {
      for (long id = 0; id < highWater; id++) {
        if (!reachable.contains(id) && !freed.contains(id)) {
          errors.add("page " + id + ": unreachable unfreed");
        }
      }
    }
  }

  /** freelist.read: count, or 0xFFFF and the count in the first id slot; then the free ids. */
  private void readFreelist(long pgid) throws IOException {
    ByteBuffer page = reader.pageAt(pgid);
    int overflow = page.getInt(12);
    for (long i = 0; i <= (overflow & 0xffffffffL); i++) {
      reachable.add(pgid + i);
    }
    if ((page.getShort(8) & BboltFormat.FREELIST) == 0) {
      throw new IOException("invalid freelist page: " + pgid + ", page type is " + type(page.getShort(8) & 0xffff));
    }
    int at = BboltFormat.PAGE_HEADER;
    long count = page.getShort(10) & 0xffff;
    if (count == 0xffff) {
      count = page.getLong(at);
      at += 8;
    }
    if (count < 0 || at + count * 8 > page.limit()) {
      throw new IOException("invalid freelist page: " + pgid + ", " + count + " ids do not fit");
    }
    for (long i = 0; i < count; i++) {
      long id = page.getLong(at + (int) i * 8);
      if (!freed.add(id)) {
        errors.add("page " + id + ": already freed");
      }
    }
  }

  /** checkBucket: this bucket's pages, then each regular sub-bucket's, in key order. */
  private void bucket(long root) throws IOException {
    List<Long> children = new ArrayList<>();
    pages(root, children);
    for (long child : children) {
      bucket(child);
    }
  }

  /** forEachPage from {@code pgid}; collects the roots of regular sub-buckets found in leaves. */
  private void pages(long pgid, List<Long> children) throws IOException {
    if (pgid >= highWater || pgid * reader.meta().pageSize() >= reader.fileSize()) {
      // bbolt reads such a page from beyond its map and reports the id in its header; here there is none.
      errors.add("page " + pgid + ": out of bounds: " + highWater);
      return;
    }
    ByteBuffer page = reader.pageAt(pgid);
    long id = page.getLong(0);
    int flags = page.getShort(8) & 0xffff;
    int count = page.getShort(10) & 0xffff;
    if (id > highWater) {
      errors.add("page " + id + ": out of bounds: " + highWater);
    }
    for (long i = 0; i <= (page.getInt(12) & 0xffffffffL); i++) {
      if (!reachable.add(id + i)) {
        errors.add("page " + (id + i) + ": multiple references");
      }
    }
    if (freed.contains(id)) {
      errors.add("page " + id + ": reachable freed");
    } else if ((flags & (BboltFormat.BRANCH | BboltFormat.LEAF)) == 0) {
      errors.add("page " + id + ": invalid type: " + type(flags));
    }
    try {
      children(page, flags, count, children);
    } catch (IndexOutOfBoundsException e) { // bbolt faults on such a page
      errors.add("page " + id + ": elements outside the page");
    }
  }

  private void children(ByteBuffer page, int flags, int count, List<Long> children) throws IOException {
    if ((flags & BboltFormat.BRANCH) != 0) {
      for (int i = 0; i < count; i++) {
        pages(page.getLong(BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT + 8), children);
      }
    } else if ((flags & BboltFormat.LEAF) != 0) {
      for (int i = 0; i < count; i++) {
        int at = BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT;
        if ((page.getInt(at) & BboltFormat.BUCKET_LEAF) != 0) {
          long child = page.getLong(at + page.getInt(at + 4) + page.getInt(at + 8));
          if (child != 0) { // inline buckets have no pages of their own
            children.add(child);
          }
        }
      }
    }
  }

  /** page.typ(). */
  private static String type(int flags) {
    if ((flags & BboltFormat.BRANCH) != 0) {
      return "branch";
    } else if ((flags & BboltFormat.LEAF) != 0) {
      return "leaf";
    } else if ((flags & BboltFormat.META) != 0) {
      return "meta";
    } else if ((flags & BboltFormat.FREELIST) != 0) {
      return "freelist";
    }
    return String.format("unknown<%02x>", flags);
  }
}
