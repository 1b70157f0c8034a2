package io.akkaetcd.mvcc;

import java.util.Arrays;

/**
 * The keys and values of a chunk of rows, copied end to end into one array that the next chunk
 * but one reuses: a long scan allocates per chunk, not per row. A row is an offset and a length.
 * Not thread-safe.
 */
final class ChunkBytes {
  private byte[] bytes;
  private int length;

  ChunkBytes(int capacity) {
    bytes = new byte[capacity];
  }

  byte[] array() {
    return bytes;
  }

  int length() {
    return length;
  }

  /** Forgets the rows: the array is written over from the start. */
  void clear() {
    length = 0;
  }

  /** Forgets the bytes from {@code length} on (a row read and then not kept). */
  void truncate(int length) {
    if (length < 0 || length > this.length) {
      throw new IllegalArgumentException("truncate to " + length + " of " + this.length);
    }
    this.length = length;
  }

  /** Room for {@code n} more bytes at {@link #length()}; the array may be replaced (grown). */
  byte[] reserve(int n) {
    if (bytes.length - length < n) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, Math.addExact(length, n)));
    }
    return bytes;
  }

  /** Counts {@code n} bytes written at {@link #length()} (after {@link #reserve}). */
  void advance(int n) {
    length += n;
  }

  /** Appends {@code b} whole and returns its offset. */
  int append(byte[] b) {
    int at = length;
    System.arraycopy(b, 0, reserve(b.length), at, b.length);
    length += b.length;
    return at;
  }
}
