package io.akkaetcd.bbolt;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * Hands out page ids in file order and writes each page at once: pages are written in id order, so
 * the image streams front to back. A null stream only counts (the writer's layout pass). Pages are
 * encoded into one buffer reused from page to page ({@link #page}); the stream copies what it keeps.
 */
final class PageOut {
  private final OutputStream out;
  private long nextPgid;
  private byte[] buffer = new byte[BboltFormat.PAGE_SIZE];

  PageOut(OutputStream out, long firstPgid) {
    this.out = out;
    this.nextPgid = firstPgid;
  }

  /** The reused buffer, zeroed over {@code pages} pages, to encode the next page into. */
  byte[] page(int pages) {
    int bytes = pages * BboltFormat.PAGE_SIZE;
    if (buffer.length < bytes) {
      buffer = new byte[bytes];
    } else {
      Arrays.fill(buffer, 0, bytes, (byte) 0);
    }
    return buffer;
  }

  /** Writes the first {@code pages} pages of {@code page} (its id patched in) and returns its id. */
  long write(byte[] page, int pages) throws IOException {
    long id = nextPgid;
    BboltFormat.le(page).putLong(0, id);
    nextPgid += pages;
    if (out != null) {
      out.write(page, 0, pages * BboltFormat.PAGE_SIZE);
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
