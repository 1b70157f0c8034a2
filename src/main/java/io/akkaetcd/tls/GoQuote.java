package io.akkaetcd.tls;

/** Go's {@code %q} of a string (strconv.Quote), as etcd's TLS errors print names and values
 * and jsonpb an unknown enum name. */
public final class GoQuote {
  private GoQuote() {}

  public static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    s.codePoints().forEach(c -> {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        case '\r' -> b.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02x", c));
          } else {
            b.appendCodePoint(c);
          }
        }
      }
    });
    return b.append('"').toString();
  }
}
