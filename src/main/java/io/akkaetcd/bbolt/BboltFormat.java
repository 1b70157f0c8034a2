package io.akkaetcd.bbolt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * bbolt's on-disk constants (go.etcd.io/bbolt page.go, db.go): every integer is little-endian, a
 * page starts with a 16-byte header {id u64, flags u16, count u16, overflow u32}, pages 0 and 1 are
 * metas, leaf and branch elements are 16 bytes each and their {@code pos} counts from the element.
 */
final class BboltFormat {
  static final int PAGE_SIZE = 4096;
  static final int PAGE_HEADER = 16;
  static final int ELEMENT = 16;
  static final int BRANCH = 0x01;
  static final int LEAF = 0x02;
  static final int META = 0x04;
  static final int FREELIST = 0x10;
  /** Leaf element flag: the value is a bucket header {root pgid, sequence} (+ inline page if root 0). */
  static final int BUCKET_LEAF = 0x01;
  static final int BUCKET_HEADER = 16;
  static final int MAGIC = 0xED0CDAED;
  static final int VERSION = 2;
  /** Meta fields before the checksum, which is FNV-1a-64 over exactly these bytes. */
  static final int META_CHECKED = 56;
  static final long NO_FREELIST = -1L;

  private BboltFormat() {}

  static ByteBuffer le(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  static long fnv1a64(ByteBuffer buf, int from, int to) {
    long h = 0xcbf29ce484222325L;
    for (int i = from; i < to; i++) {
      h ^= buf.get(i) & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  /** A meta page as bbolt's tx.WriteTo writes it: header, meta fields, checksum. */
  static byte[] metaPage(long pageId, long rootPgid, long freelistPgid, long highWater, long txid) {
    byte[] page = new byte[PAGE_SIZE];
    ByteBuffer b = le(page);
    b.putLong(0, pageId).putShort(8, (short) META);
    int m = PAGE_HEADER;
    b.putInt(m, MAGIC).putInt(m + 4, VERSION).putInt(m + 8, PAGE_SIZE).putInt(m + 12, 0);
    b.putLong(m + 16, rootPgid).putLong(m + 24, 0L);
    b.putLong(m + 32, freelistPgid).putLong(m + 40, highWater).putLong(m + 48, txid);
    b.putLong(m + META_CHECKED, fnv1a64(b, m, m + META_CHECKED));
    return page;
  }

  /** An empty freelist page: nothing is free in a bulk-written image. */
  static byte[] emptyFreelistPage(long pageId) {
    byte[] page = new byte[PAGE_SIZE];
    le(page).putLong(0, pageId).putShort(8, (short) FREELIST);
    return page;
  }

  static byte[] bucketHeader(long rootPgid) {
    byte[] value = new byte[BUCKET_HEADER];
    le(value).putLong(0, rootPgid).putLong(8, 0L);
    return value;
  }

  /** Pages needed for {@code bytes}: a page bigger than one page size spills into overflow pages. */
  static int pagesFor(long bytes) {
    return (int) ((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
  }
}
