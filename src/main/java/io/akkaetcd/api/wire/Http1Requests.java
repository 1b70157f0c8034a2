package io.akkaetcd.api.wire;

import akka.util.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A client's HTTP/1.1 requests on their way to Akka HTTP, each head without an h2c upgrade
 * ({@code Upgrade: h2c}, {@code HTTP2-Settings}): etcd's client port (Go's net/http) ignores the
 * upgrade and answers in HTTP/1.1, and so does akka-etcd. Akka HTTP would switch protocols, and
 * the JDK's HttpClient and curl then misread a large first response (such as /metrics).
 * Bodies pass as their bytes arrive (Content-Length); after a chunked body, a head that does not
 * parse, or one larger than {@link #MAX_HEAD}, the rest of the connection passes unchanged.
 * Confined to the connection's stage.
 */
final class Http1Requests {
  /** Akka HTTP's default limit on a request's header section is well below this. */
  static final int MAX_HEAD = 64 * 1024;
  private static final ByteString BLANK_LINE = ByteString.fromString("\r\n\r\n", StandardCharsets.US_ASCII);

  /** Bytes of a head still being collected. */
  private ByteString head = ByteString.emptyByteString();
  /** Body bytes of the current request still to pass; -1 once the rest passes unchanged. */
  private long body;

  /** The bytes to hand on for this chunk (possibly none yet). */
  ByteString process(ByteString chunk) {
    ByteString out = ByteString.emptyByteString();
    ByteString in = chunk;
    while (!in.isEmpty()) {
      if (body < 0) {
        return out.concat(in);
      }
      if (body > 0) {
        int k = (int) Math.min(body, in.size());
        out = out.concat(in.take(k));
        in = in.drop(k);
        body -= k;
        continue;
      }
      int from = Math.max(0, head.size() - (BLANK_LINE.size() - 1));
      head = head.concat(in);
      in = ByteString.emptyByteString();
      int end = blankLine(head, from);
      if (end < 0) {
        if (head.size() > MAX_HEAD) {
          body = -1;
          out = out.concat(head);
          head = ByteString.emptyByteString();
        }
        continue;
      }
      ByteString complete = head.take(end + BLANK_LINE.size());
      in = head.drop(complete.size());
      head = ByteString.emptyByteString();
      out = out.concat(rewrite(complete));
    }
    return out;
  }

  /** Where the first blank line (CRLF CRLF) at or after {@code from} starts, or -1. */
  private static int blankLine(ByteString bytes, int from) {
    for (int i = from; i + BLANK_LINE.size() <= bytes.size(); i++) {
      if (bytes.apply(i) == '\r' && bytes.apply(i + 1) == '\n' && bytes.apply(i + 2) == '\r' && bytes.apply(i + 3) == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** What is still held back when the client's side ends: handed on as it is. */
  ByteString finish() {
    ByteString rest = head;
    head = ByteString.emptyByteString();
    return rest;
  }

  /**
   * The head without its h2c upgrade fields; sets {@link #body} from its framing fields. Read in
   * place, line by line: a new head is built only when a field is dropped.
   */
  private ByteString rewrite(ByteString complete) {
    String head = complete.decodeString(StandardCharsets.ISO_8859_1);
    StringBuilder kept = null;
    int keptFrom = 0;
    body = 0;
    // the request line first; every field line ends with CRLF, the last one before the blank line
    for (int line = head.indexOf("\r\n") + 2, end; line < head.length() - 2; line = end + 2) {
      end = head.indexOf("\r\n", line);
      int colon = head.indexOf(':', line);
      if (colon < 0 || colon > end) {
        continue;
      }
      if (named(head, line, colon, "http2-settings")
          || named(head, line, colon, "upgrade") && value(head, colon, end).toLowerCase(Locale.ROOT).contains("h2c")) {
        kept = (kept == null ? new StringBuilder(head.length()) : kept).append(head, keptFrom, line);
        keptFrom = end + 2;
      } else if (named(head, line, colon, "transfer-encoding")) {
        body = -1;
      } else if (named(head, line, colon, "content-length") && body >= 0) {
        try {
          body = Long.parseLong(value(head, colon, end));
        } catch (NumberFormatException e) {
          body = -1; // Akka HTTP refuses it and closes the connection
        }
      }
    }
    if (body < -1) {
      body = -1;
    }
    return kept == null ? complete
        : ByteString.fromString(kept.append(head, keptFrom, head.length()).toString(), StandardCharsets.ISO_8859_1);
  }

  /** Whether the field name in {@code head[from, colon)}, blanks trimmed, is {@code name} in any case. */
  private static boolean named(String head, int from, int colon, String name) {
    while (from < colon && head.charAt(from) <= ' ') {
      from++;
    }
    while (colon > from && head.charAt(colon - 1) <= ' ') {
      colon--;
    }
    return colon - from == name.length() && head.regionMatches(true, from, name, 0, name.length());
  }

  private static String value(String head, int colon, int end) {
    return head.substring(colon + 1, end).trim();
  }
}
