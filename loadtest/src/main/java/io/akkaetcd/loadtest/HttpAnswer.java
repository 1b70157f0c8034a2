package io.akkaetcd.loadtest;

import java.nio.charset.StandardCharsets;

/**
 * Where one HTTP/1.1 answer ends in a buffer, read in place: its head, then a Content-Length body
 * or a chunked one (RFC 9112 §7.1, no trailers); an answer with neither ends with its head. Pure.
 */
final class HttpAnswer {
  private HttpAnswer() {}

  /** The status code of the answer that starts at 0 ("HTTP/1.1 200 ..."). */
  static int status(byte[] a) {
    return (a[9] - '0') * 100 + (a[10] - '0') * 10 + (a[11] - '0');
  }

  /** The index just past the answer in {@code a[0, n)}, or -1 while it is incomplete. */
  static int end(byte[] a, int n) {
    int headEnd = indexOfCrlf(a, 0, n, true);
    if (headEnd < 0) return -1;
    int start = headEnd + 4;
    long length = -1;
    boolean chunked = false;
    for (int line = indexOfCrlf(a, 0, headEnd, false) + 2; line > 1 && line < start; ) {
      int next = indexOfCrlf(a, line, start, false);
      if (next < 0) next = headEnd;
      if (startsWithIgnoreCase(a, line, next, "content-length:")) {
        length = Long.parseLong(new String(a, line + 15, next - line - 15, StandardCharsets.US_ASCII).trim());
      } else if (startsWithIgnoreCase(a, line, next, "transfer-encoding:")) {
        chunked = new String(a, line, next - line, StandardCharsets.US_ASCII).toLowerCase().contains("chunked");
      }
      line = next + 2;
    }
    if (chunked) return chunkedEnd(a, start, n);
    if (length < 0) return start;
    return start + length <= n ? (int) (start + length) : -1;
  }

  private static int chunkedEnd(byte[] a, int p, int n) {
    while (true) {
      int eol = indexOfCrlf(a, p, n, false);
      if (eol < 0) return -1;
      int size = 0;
      for (int i = p; i < eol && a[i] != ';' && a[i] != ' '; i++) size = size * 16 + Character.digit(a[i], 16);
      p = eol + 2;
      if (size == 0) return p + 2 <= n ? p + 2 : -1;
      if (p + size + 2 > n) return -1;
      p += size + 2;
    }
  }

  /** The index of the next CRLF (or CRLF CRLF when {@code blank}) in {@code a[from, to)}, or -1. */
  private static int indexOfCrlf(byte[] a, int from, int to, boolean blank) {
    int width = blank ? 4 : 2;
    for (int i = from; i + width <= to; i++) {
      if (a[i] == '\r' && a[i + 1] == '\n' && (!blank || a[i + 2] == '\r' && a[i + 3] == '\n')) return i;
    }
    return -1;
  }

  private static boolean startsWithIgnoreCase(byte[] a, int from, int to, String prefix) {
    if (to - from < prefix.length()) return false;
    for (int i = 0; i < prefix.length(); i++) {
      if (Character.toLowerCase(a[from + i]) != prefix.charAt(i)) return false;
    }
    return true;
  }
}
