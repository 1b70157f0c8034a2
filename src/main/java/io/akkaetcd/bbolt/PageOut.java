package io.akkaetcd.bbolt;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Hands out page ids in file order and writes each page at once: pages are written in id order, so
 * the image streams front to back. A null stream only counts (the writer's layout pass).
 */
final class PageOut {
  private final OutputStream out;
  private long nextPgid;

  PageOut(OutputStream out, long firstPgid) {
    this.out = out;
    this.nextPgid = firstPgid;
  }

  /** Writes {@code page} (a whole number of pages, id patched in) and returns its id. */
  long write(byte[] page) throws IOException {
    long id = nextPgid;
    BboltFormat.le(page).putLong(0, id);
    nextPgid += page.length / BboltFormat.PAGE_SIZE;
    if (out != null) {
      out.write(page);
    }
    return id;
  }

  /** True in the layout pass: pages need only be counted ({@link #skip}), not encoded. */
  boolean counting() {
    return out == null;
  }

  /** Allocates {@code pages} ids without writing (layout pass); returns the first. */
  long skip(int pages) {
    long id = nextPgid;
    nextPgid += pages;
    return id;
  }

  /** The high-water mark: the first id not written yet. */
  long nextPgid() {
    return nextPgid;
  }
}
