package io.akkaetcd.gateway;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How Go's {@code json.Decoder.Decode} reads the first JSON value of a gateway body, as
 * grpc-gateway's JSONPb unmarshaler calls it: the value ends at its closing bracket (a scalar at
 * the next byte or EOF) and the bytes after it are not read; a malformed byte fails with the
 * scanner's own words ({@code invalid character 'b' looking for beginning of object key string}), a
 * body cut short with {@code unexpected EOF}, and a body of blanks is EOF, the empty request. A
 * value that is not an object then fails jsonpb's unmarshal into {@code map[string]json.RawMessage}.
 * Mirrors encoding/json's scanner.go state for state; pure and stateless.
 */
final class GoJsonDecoder {
  private GoJsonDecoder() {}

  /** The first value's JSON text (null for a blank body: EOF) and the UTF-8 bytes it took. */
  record Decoded(String json, int end) {}

  /** A body Go refuses, with its error text; incomplete when more bytes could still complete it. */
  static final class DecodeException extends Exception {
    final boolean incomplete;

    DecodeException(String message) {
      this(message, false);
    }

    DecodeException(String message, boolean incomplete) {
      super(message, null, false, false);
      this.incomplete = incomplete;
    }
  }

  /** The first JSON value of {@code body}, checked as Go's decoder checks it. */
  static Decoded first(String body) throws DecodeException {
    return first(body.getBytes(StandardCharsets.UTF_8));
  }

  /** As above, over UTF-8 bytes. */
  static Decoded first(byte[] b) throws DecodeException {
    int start = skipSpace(b, 0);
    if (start == b.length) {
      return new Decoded(null, b.length);
    }
    int end = new Scanner(b).scan(start);
    String json = new String(b, start, end - start, StandardCharsets.UTF_8);
    String kind = switch (b[start]) {
      case '{' -> null;
      case 'n' -> null; // null unmarshals into a nil map: the empty request, "{}"
      case '[' -> "array";
      case '"' -> "string";
      case 't', 'f' -> "bool";
      default -> "number";
    };
    if (kind != null) {
      throw new DecodeException("json: cannot unmarshal " + kind + " into Go value of type map[string]json.RawMessage");
    }
    return new Decoded(json.equals("null") ? "{}" : json, end);
  }

  /**
   * json.Unmarshal's checkValid over {@code b}: one value amid blanks, else Go's words ({@code
   * unexpected end of JSON input}, {@code invalid character '2' after top-level value}); at EOF the
   * scanner steps a blank first, as its eof() does.
   */
  static void checkValid(byte[] b) throws DecodeException {
    int start = skipSpace(b, 0);
    if (start < b.length) {
      Scanner scanner = new Scanner(b);
      try {
        int end = skipSpace(b, scanner.scan(start));
        if (end < b.length) {
          throw new DecodeException("invalid character " + Scanner.quoteChar(b[end] & 0xff) + " after top-level value");
        }
        return;
      } catch (DecodeException e) {
        if (!e.incomplete) {
          throw e;
        }
        scanner.step((byte) ' '); // the scanner's eof(): "-" fails as "invalid character ' ' in numeric literal"
      }
    }
    throw new DecodeException("unexpected end of JSON input", true);
  }

  private static int skipSpace(byte[] b, int i) {
    while (i < b.length && space(b[i])) {
      i++;
    }
    return i;
  }

  private static boolean space(byte c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  /** encoding/json's scanner over one value: step functions by state, a stack of open brackets. */
  private static final class Scanner {
    private enum Parse { OBJECT_KEY, OBJECT_VALUE, ARRAY_VALUE }

    private enum State {
      BEGIN_VALUE, BEGIN_VALUE_OR_EMPTY, BEGIN_STRING_OR_EMPTY, BEGIN_STRING, END_VALUE,
      IN_STRING, IN_STRING_ESC, IN_STRING_ESC_U1, IN_STRING_ESC_U12, IN_STRING_ESC_U123, IN_STRING_ESC_U1234,
      NEG, ONE, ZERO, DOT, DOT0, E, ESIGN, E0, LITERAL
    }

    private final byte[] b;
    private final Deque<Parse> stack = new ArrayDeque<>();
    private State state = State.BEGIN_VALUE;
    /** The literal being read (true, false, null) and the index of its next letter. */
    private String literal;
    private int literalAt;
    private boolean done;
    /** A top-level number ended at the byte after it, which is not part of the value. */
    private boolean delimited;

    Scanner(byte[] b) {
      this.b = b;
    }

    /** The index just past the value that starts at {@code start} (a number's delimiter unread). */
    int scan(int start) throws DecodeException {
      for (int i = start; i < b.length; i++) {
        step(b[i]);
        if (done) {
          return i + 1;
        }
        if (state == State.END_VALUE && stack.isEmpty()) {
          // a scalar ends at the next byte, which the decoder does not consume
          return delimited ? i : i + 1;
        }
      }
      if (stack.isEmpty() && (state == State.END_VALUE || endsScalar())) {
        return b.length;
      }
      throw new DecodeException("unexpected EOF", true);
    }

    /** A top-level number may end at EOF (the scanner's step(' ') then ends it). */
    private boolean endsScalar() {
      return (state == State.ONE || state == State.ZERO || state == State.DOT0 || state == State.E0);
    }

    private void step(byte c) throws DecodeException {
      switch (state) {
        case BEGIN_VALUE_OR_EMPTY -> {
          if (space(c)) {
            return;
          }
          if (c == ']') {
            endValue(c);
            return;
          }
          beginValue(c);
        }
        case BEGIN_VALUE -> beginValue(c);
        case BEGIN_STRING_OR_EMPTY -> {
          if (space(c)) {
            return;
          }
          if (c == '}') {
            stack.pop();
            stack.push(Parse.OBJECT_VALUE);
            endValue(c);
            return;
          }
          beginString(c);
        }
        case BEGIN_STRING -> beginString(c);
        case END_VALUE -> endValue(c);
        case IN_STRING -> {
          if (c == '"') {
            state = State.END_VALUE;
          } else if (c == '\\') {
            state = State.IN_STRING_ESC;
          } else if ((c & 0xff) < 0x20) {
            throw error(c, "in string literal");
          }
        }
        case IN_STRING_ESC -> {
          switch (c) {
            case 'b', 'f', 'n', 'r', 't', '\\', '/', '"' -> state = State.IN_STRING;
            case 'u' -> state = State.IN_STRING_ESC_U1;
            default -> throw error(c, "in string escape code");
          }
        }
        case IN_STRING_ESC_U1 -> hex(c, State.IN_STRING_ESC_U12);
        case IN_STRING_ESC_U12 -> hex(c, State.IN_STRING_ESC_U123);
        case IN_STRING_ESC_U123 -> hex(c, State.IN_STRING_ESC_U1234);
        case IN_STRING_ESC_U1234 -> hex(c, State.IN_STRING);
        case NEG -> {
          if (c == '0') {
            state = State.ZERO;
          } else if (c >= '1' && c <= '9') {
            state = State.ONE;
          } else {
            throw error(c, "in numeric literal");
          }
        }
        case ONE -> {
          if (c >= '0' && c <= '9') {
            return;
          }
          zero(c);
        }
        case ZERO -> zero(c);
        case DOT -> {
          if (c >= '0' && c <= '9') {
            state = State.DOT0;
          } else {
            throw error(c, "after decimal point in numeric literal");
          }
        }
        case DOT0 -> {
          if (c >= '0' && c <= '9') {
            return;
          }
          if (c == 'e' || c == 'E') {
            state = State.E;
            return;
          }
          endValue(c);
        }
        case E -> {
          if (c == '+' || c == '-') {
            state = State.ESIGN;
            return;
          }
          eSign(c);
        }
        case ESIGN -> eSign(c);
        case E0 -> {
          if (c >= '0' && c <= '9') {
            return;
          }
          endValue(c);
        }
        case LITERAL -> {
          if (c != literal.charAt(literalAt)) {
            throw error(c, "in literal " + literal + " (expecting '" + literal.charAt(literalAt) + "')");
          }
          if (++literalAt == literal.length()) {
            state = State.END_VALUE;
          }
        }
      }
    }

    private void beginValue(byte c) throws DecodeException {
      if (space(c)) {
        return;
      }
      switch (c) {
        case '{' -> {
          stack.push(Parse.OBJECT_KEY);
          state = State.BEGIN_STRING_OR_EMPTY;
        }
        case '[' -> {
          stack.push(Parse.ARRAY_VALUE);
          state = State.BEGIN_VALUE_OR_EMPTY;
        }
        case '"' -> state = State.IN_STRING;
        case '-' -> state = State.NEG;
        case '0' -> state = State.ZERO;
        case 't' -> literal("true");
        case 'f' -> literal("false");
        case 'n' -> literal("null");
        default -> {
          if (c >= '1' && c <= '9') {
            state = State.ONE;
          } else {
            throw error(c, "looking for beginning of value");
          }
        }
      }
    }

    private void literal(String name) {
      state = State.LITERAL;
      literal = name;
      literalAt = 1;
    }

    private void beginString(byte c) throws DecodeException {
      if (space(c)) {
        return;
      }
      if (c != '"') {
        throw error(c, "looking for beginning of object key string");
      }
      state = State.IN_STRING;
    }

    private void hex(byte c, State next) throws DecodeException {
      if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
        state = next;
      } else {
        throw error(c, "in \\u hexadecimal character escape");
      }
    }

    private void zero(byte c) throws DecodeException {
      if (c == '.') {
        state = State.DOT;
      } else if (c == 'e' || c == 'E') {
        state = State.E;
      } else {
        endValue(c);
      }
    }

    private void eSign(byte c) throws DecodeException {
      if (c >= '0' && c <= '9') {
        state = State.E0;
      } else {
        throw error(c, "in exponent of numeric literal");
      }
    }

    /** stateEndValue: what may follow a complete value inside its brackets. */
    private void endValue(byte c) throws DecodeException {
      if (stack.isEmpty()) {
        state = State.END_VALUE; // a top-level scalar: the decoder stops before this byte
        delimited = true;
        return;
      }
      if (space(c)) {
        state = State.END_VALUE;
        return;
      }
      switch (stack.peek()) {
        case OBJECT_KEY -> {
          if (c != ':') {
            throw error(c, "after object key");
          }
          stack.pop();
          stack.push(Parse.OBJECT_VALUE);
          state = State.BEGIN_VALUE;
        }
        case OBJECT_VALUE -> {
          if (c == ',') {
            stack.pop();
            stack.push(Parse.OBJECT_KEY);
            state = State.BEGIN_STRING;
          } else if (c == '}') {
            close();
          } else {
            throw error(c, "after object key:value pair");
          }
        }
        case ARRAY_VALUE -> {
          if (c == ',') {
            state = State.BEGIN_VALUE;
          } else if (c == ']') {
            close();
          } else {
            throw error(c, "after array element");
          }
        }
      }
    }

    private void close() {
      stack.pop();
      state = State.END_VALUE;
      done = stack.isEmpty();
    }

    /** Go's SyntaxError text: {@code invalid character 'x' <context>}, the byte as quoteChar shows it. */
    private static DecodeException error(byte c, String context) {
      return new DecodeException("invalid character " + quoteChar(c & 0xff) + " " + context);
    }

    private static String quoteChar(int c) {
      if (c == '\'') {
        return "'\\''";
      }
      if (c == '"') {
        return "'\"'";
      }
      String quoted = switch (c) {
        case 7 -> "\\a";
        case '\b' -> "\\b";
        case '\f' -> "\\f";
        case '\n' -> "\\n";
        case '\r' -> "\\r";
        case '\t' -> "\\t";
        case 11 -> "\\v";
        case '\\' -> "\\\\";
        default -> c < 0x20 || c == 0x7f ? String.format("\\x%02x", c)
            : c >= 0x80 && c < 0xa0 ? String.format("\\u%04x", c)
            : c == 0xad ? "\\u00ad" : String.valueOf((char) c);
      };
      return "'" + quoted + "'";
    }
  }
}
