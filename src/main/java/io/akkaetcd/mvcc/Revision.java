package io.akkaetcd.mvcc;

import java.nio.ByteBuffer;

/**
 * A point in the store's history: {@code main} is the store revision of a write transaction,
 * {@code sub} numbers the writes within it. Ordered by main, then sub.
 *
 * <p>On disk a revision is 17 bytes, big-endian main, '_', big-endian sub, so LevelDB's byte
 * order is revision order; a tombstone (a delete) appends a marker byte 't'.
 */
public record Revision(long main, long sub) implements Comparable<Revision> {
  static final int BYTES = 17;
  static final byte TOMBSTONE = 't';

  @Override
  public int compareTo(Revision o) {
    int c = Long.compare(main, o.main);
    return c != 0 ? c : Long.compare(sub, o.sub);
  }

  byte[] toBytes(boolean tombstone) {
    ByteBuffer b = ByteBuffer.allocate(BYTES + (tombstone ? 1 : 0));
    b.putLong(main).put((byte) '_').putLong(sub);
    if (tombstone) {
      b.put(TOMBSTONE);
    }
    return b.array();
  }

  static Revision fromBytes(byte[] b, int offset) {
    ByteBuffer buf = ByteBuffer.wrap(b, offset, BYTES);
    long main = buf.getLong();
    buf.get();
    return new Revision(main, buf.getLong());
  }

  static boolean isTombstone(byte[] b, int offset) {
    return isTombstone(b, offset, b.length);
  }

  /** Whether the revision at {@code offset}, whose row key ends at {@code end}, marks a delete. */
  static boolean isTombstone(byte[] b, int offset, int end) {
    return end == offset + BYTES + 1 && b[offset + BYTES] == TOMBSTONE;
  }
}
