package io.akkaetcd.gateway;

import com.google.gson.Gson;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;

/**
 * The JSON of etcd's gateway (grpc-gateway's jsonpb with {@code OrigName: true}, defaults not
 * emitted), by protobuf-java-util's proto3 JSON: field names as the .proto declares them
 * ({@code cluster_id}, {@code ID}, {@code clientURLs}), int64 as strings, bytes as standard base64,
 * enums by name, zero values left out. Input takes proto or lowerCamel names, integers as numbers
 * or strings, and ignores unknown fields, as jsonpb's unmarshaler in the gateway does; a value of
 * the wrong type fails with jsonpb's words ({@link JsonpbPrecheck}) before JsonFormat reads it.
 */
final class JsonMapping {
  private JsonMapping() {}

  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().preservingProtoFieldNames().omittingInsignificantWhitespace();
  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
  private static final Gson GSON = new Gson();

  static String print(Message message) {
    try {
      return goEscaped(PRINTER.print(message));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e); // only Any fields fail to print, and etcd's protos have none
    }
  }

  /**
   * Parses a unary body into {@code into}: its first JSON value as Go's decoder reads it (the rest
   * unread, Go's error texts); a blank body is the empty request, as the gateway reads EOF.
   */
  static Message parse(String body, Message.Builder into)
      throws InvalidProtocolBufferException, GoJsonDecoder.DecodeException {
    return parseDecoded(GoJsonDecoder.first(body).json(), into);
  }

  /** Parses one value {@link GoJsonDecoder} cut out (null: EOF, the empty request). */
  static Message parseDecoded(String json, Message.Builder into) throws InvalidProtocolBufferException {
    if (json != null) {
      PARSER.merge(JsonpbPrecheck.checked(json, into.getDescriptorForType()), into);
    }
    return into.build();
  }

  /** A JSON string literal, escaped as Go's encoding/json escapes it. */
  static String quoted(String s) {
    return goEscaped(GSON.toJson(s));
  }

  /**
   * Gson's HTML-safe escaping as Go's: both escape {@code < > &} (and U+2028/9) as {@code \\u00XX},
   * but Go leaves {@code =} and {@code '} as they are. Only an escape's own backslash counts: an
   * escaped backslash before "u003d" is text.
   */
  static String goEscaped(String json) {
    if (json.indexOf("\\u003d") < 0 && json.indexOf("\\u0027") < 0) {
      return json;
    }
    StringBuilder out = new StringBuilder(json.length());
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '\\' && i + 1 < json.length()) {
        String escape = json.startsWith("u003d", i + 1) ? "=" : json.startsWith("u0027", i + 1) ? "'" : null;
        if (escape != null) {
          out.append(escape);
          i += 5;
        } else {
          out.append(c).append(json.charAt(++i));
        }
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
