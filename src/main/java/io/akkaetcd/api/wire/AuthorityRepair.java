package io.akkaetcd.api.wire;

import akka.http.shaded.com.twitter.hpack.Decoder;
import akka.http.shaded.com.twitter.hpack.HeaderListener;
import akka.util.ByteString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Makes a client's {@code :authority} acceptable to Akka HTTP. etcdctl 3.4 (grpc-go 1.33) dials
 * each endpoint of a per-endpoint command ({@code endpoint status}, {@code defrag}, ...) as given,
 * so with {@code --endpoints http://127.0.0.1:2379} it sends {@code :authority:
 * http://127.0.0.1:2379}. grpc-go's server (etcd) ignores the value; Akka HTTP parses it as
 * host[:port] and answers 400 before any handler runs. The value is not used here, so such a
 * value is replaced by one of the same length made of unreserved characters
 * ({@code http___127.0.0.1_2379}).
 *
 * <p>Header blocks are HPACK-compressed against a table both ends keep in step (RFC 7541 §2.3).
 * This class decodes every block of the connection with its own decoder, in step with the
 * client's encoder, and rewrites only the literal strings of bad {@code :authority} values, raw
 * (not Huffman-coded) and of the same decoded length: every table entry keeps its size, so the
 * server's table evicts exactly as the client's does, and later indexed references resolve to
 * the repaired value. Confined to the connection's stage.
 */
final class AuthorityRepair {
  /** SETTINGS_HEADER_TABLE_SIZE as Akka HTTP's decoder has it: the protocol's initial 4096. */
  private static final int TABLE_SIZE = 4096;
  private static final String AUTHORITY = ":authority";

  private final Decoder decoder = new Decoder(Integer.MAX_VALUE, TABLE_SIZE);
  private final Listener listener = new Listener();

  /**
   * Decodes one complete header block; returns the block with bad {@code :authority} literals
   * repaired, or null when it needs none.
   *
   * @throws IOException if the block is not valid HPACK (the server will refuse it as well)
   */
  ByteString repair(ByteString block) throws IOException {
    byte[] bytes = block.toArray();
    listener.reset();
    decoder.decode(new ByteArrayInputStream(bytes), listener);
    decoder.endHeaderBlock();
    if (listener.bad.isEmpty()) {
      return null;
    }
    return rewrite(bytes);
  }

  /**
   * True if Akka HTTP surely accepts {@code value} as an HTTP/2 authority: host[:port] with a
   * host of unreserved characters or a bracketed IPv6 literal. Anything else is repaired (the
   * value is never read, so repairing one it would have accepted costs nothing).
   */
  static boolean acceptable(String value) {
    int hostEnd;
    if (value.startsWith("[")) {
      hostEnd = value.indexOf(']') + 1;
      if (hostEnd < 3 || !all(value, 1, hostEnd - 1, "0123456789abcdefABCDEF:.")) {
        return false;
      }
    } else {
      hostEnd = value.indexOf(':');
      hostEnd = hostEnd < 0 ? value.length() : hostEnd;
      if (!unreserved(value, 0, hostEnd)) {
        return false;
      }
    }
    if (hostEnd == value.length()) {
      return true;
    }
    int port = value.length() - hostEnd - 1;
    return value.charAt(hostEnd) == ':' && port >= 1 && port <= 5 && all(value, hostEnd + 1, value.length(), "0123456789");
  }

  /** {@code value} with every character that is not unreserved (RFC 3986 §2.3) replaced by '_'. */
  static String sanitized(String value) {
    StringBuilder s = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      s.append(unreserved(value, i, i + 1) ? value.charAt(i) : '_');
    }
    return s.toString();
  }

  private static boolean unreserved(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
          || c == '-' || c == '.' || c == '_' || c == '~';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean all(String s, int from, int to, String allowed) {
    for (int i = from; i < to; i++) {
      if (allowed.indexOf(s.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Copies the block's representations (RFC 7541 §6), replacing the value string of each literal
   * that the decoder found to be a bad authority; indexed ones refer to an entry already repaired.
   */
  private ByteString rewrite(byte[] in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + 16);
    int pos = 0;
    int field = 0;
    boolean changed = false;
    while (pos < in.length) {
      int b = in[pos] & 0xff;
      int start = pos;
      if ((b & 0x80) != 0) {
        pos = skipInteger(in, pos, 7);                  // indexed field
        field++;
      } else if ((b & 0xe0) == 0x20) {
        pos = skipInteger(in, pos, 5);                  // dynamic table size update: no field
      } else {
        int prefix = (b & 0x40) != 0 ? 6 : 4;           // literal, with or without indexing
        boolean literalName = (b & ((1 << prefix) - 1)) == 0;
        pos = skipInteger(in, pos, prefix);
        if (literalName) {
          pos = skipString(in, pos);
        }
        int valueStart = pos;
        pos = skipString(in, pos);
        String repaired = listener.repairedValue(field++);
        if (repaired != null) {
          out.write(in, start, valueStart - start);
          writeRawString(out, repaired);
          changed = true;
          continue;
        }
      }
      out.write(in, start, pos - start);
    }
    return changed ? ByteString.fromArrayUnsafe(out.toByteArray()) : null;
  }

  /** Skips an HPACK integer with an N-bit prefix (RFC 7541 §5.1) starting at {@code pos}. */
  private static int skipInteger(byte[] in, int pos, int prefixBits) throws IOException {
    return readInteger(in, pos, prefixBits)[1];
  }

  /** {value, position after it}. */
  private static int[] readInteger(byte[] in, int pos, int prefixBits) throws IOException {
    int max = (1 << prefixBits) - 1;
    int value = in[pos++] & max;
    if (value < max) {
      return new int[] {value, pos};
    }
    int shift = 0;
    while (true) {
      if (pos >= in.length || shift > 28) {
        throw new IOException("bad HPACK integer");
      }
      int b = in[pos++] & 0xff;
      value += (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return new int[] {value, pos};
      }
      shift += 7;
    }
  }

  /** Skips a string literal (RFC 7541 §5.2): H bit and 7-bit-prefix length, then the octets. */
  private static int skipString(byte[] in, int pos) throws IOException {
    if (pos >= in.length) {
      throw new IOException("truncated HPACK string");
    }
    int[] length = readInteger(in, pos, 7);
    int end = length[1] + length[0];
    if (end > in.length || end < 0) {
      throw new IOException("truncated HPACK string");
    }
    return end;
  }

  private static void writeRawString(ByteArrayOutputStream out, String s) {
    int length = s.length();
    if (length < 0x7f) {
      out.write(length);
    } else {
      out.write(0x7f);
      length -= 0x7f;
      while (length >= 0x80) {
        out.write((length & 0x7f) | 0x80);
        length >>>= 7;
      }
      out.write(length);
    }
    for (int i = 0; i < s.length(); i++) {
      out.write(s.charAt(i));
    }
  }

  /** Counts the fields of a block and notes the repaired value of each bad authority by position. */
  private static final class Listener implements HeaderListener {
    private final Map<Integer, String> bad = new HashMap<>();
    private int field;

    void reset() {
      bad.clear();
      field = 0;
    }

    @Override
    public Object addHeader(String name, String value, Object parsed, boolean sensitive) {
      if (AUTHORITY.equals(name) && !acceptable(value)) {
        bad.put(field, sanitized(value));
      }
      field++;
      // The decoder caches what this returns in its table, and the static table is shared with
      // Akka HTTP's own decoders: give back exactly what was there.
      return parsed;
    }

    String repairedValue(int field) {
      return bad.get(field);
    }
  }
}
