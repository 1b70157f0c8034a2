package io.akkaetcd.gateway;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import io.akkaetcd.tls.GoQuote;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks a request's JSON tree against the message descriptor as etcd 3.4's gateway reads it
 * (golang/protobuf 1.3's jsonpb over encoding/json), before {@link JsonMapping}'s JsonFormat
 * parses it: a value of the wrong type fails with Go's words, and what jsonpb accepts but JsonFormat
 * does not is put in JsonFormat's form. Fields are read in the Go struct's order (declared ones,
 * then oneof members), by proto or lowerCamel name (lowerCamel wins); {@code null} leaves a field
 * unset; an integer may be quoted; bytes are padded base64 (Go's decoder) or an array of bytes.
 * Pure and stateless.
 */
final class JsonpbPrecheck {
  private JsonpbPrecheck() {}

  private static final Gson GSON = new Gson();
  /** The standard base64 alphabet's bytes. */
  private static final boolean[] BASE64_DIGIT = new boolean[256];
  /** Each message's fields in the Go struct's order; descriptors are few and live as long as the JVM. */
  private static final Map<Descriptor, List<FieldDescriptor>> GO_ORDER = new ConcurrentHashMap<>();

  static {
    for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray()) {
      BASE64_DIGIT[c] = true;
    }
  }

  /** The object {@code json} (checked by {@link GoJsonDecoder}) as JsonFormat should read it. */
  static String checked(String json, Descriptor type) throws InvalidProtocolBufferException {
    return GSON.toJson(message(JsonParser.parseString(json), type));
  }

  private static JsonObject message(JsonElement v, Descriptor type) throws InvalidProtocolBufferException {
    JsonObject in = expect(v, v.isJsonObject(), "map[string]json.RawMessage").getAsJsonObject();
    JsonObject out = new JsonObject();
    // the Go struct holds a oneof in one interface field, which jsonpb reads after the others
    List<FieldDescriptor> fields = GO_ORDER.computeIfAbsent(type, t -> t.getFields().stream()
        .sorted(Comparator.comparing(f -> f.getRealContainingOneof() != null)).toList());
    for (FieldDescriptor f : fields) {
      JsonElement value = in.has(f.getJsonName()) ? in.get(f.getJsonName()) : in.get(f.getName());
      value = f.isRepeated() ? repeated(value, f) : single(value, f);
      if (value != null) {
        out.add(f.getName(), value);
      }
    }
    return out;
  }

  /** A repeated field: a JSON array, a null item being the element's zero value. */
  private static JsonArray repeated(JsonElement v, FieldDescriptor f) throws InvalidProtocolBufferException {
    if (v == null || v.isJsonNull()) {
      return null;
    }
    JsonArray out = new JsonArray();
    for (JsonElement item : expect(v, v.isJsonArray(), "[]json.RawMessage").getAsJsonArray()) {
      JsonElement value = single(item, f);
      out.add(value != null ? value : zero(f));
    }
    return out;
  }

  /** One value of {@code f}'s type, or null where Go leaves the field unset. */
  private static JsonElement single(JsonElement v, FieldDescriptor f) throws InvalidProtocolBufferException {
    if (v == null || v.isJsonNull()) {
      return null;
    }
    return switch (f.getType()) {
      case MESSAGE, GROUP -> message(v, f.getMessageType());
      case ENUM -> enumValue(v, f.getEnumType());
      case BYTES -> bytes(v);
      case STRING -> expect(v, isString(v), "string");
      case BOOL -> expect(v, kindOf(v).equals("bool"), "bool");
      case INT64, SINT64, SFIXED64 -> integer(unquoted(v), "int64", 64, true);
      case INT32, SINT32, SFIXED32 -> integer(unquoted(v), "int32", 32, true);
      case UINT32, FIXED32 -> integer(unquoted(v), "uint32", 32, false);
      case UINT64, FIXED64 -> integer(unquoted(v), "uint64", 64, false);
      case FLOAT, DOUBLE -> v; // no etcd message has one
    };
  }

  private static JsonElement zero(FieldDescriptor f) {
    return switch (f.getJavaType()) {
      case MESSAGE -> new JsonObject();
      case BOOLEAN -> new JsonPrimitive(false);
      case STRING, BYTE_STRING -> new JsonPrimitive("");
      default -> new JsonPrimitive(0);
    };
  }

  /** An enum by its name in quotes (jsonpb looks the text up as sent) or by its number. */
  private static JsonElement enumValue(JsonElement v, EnumDescriptor type) throws InvalidProtocolBufferException {
    String pkg = type.getFile().getPackage();
    String goType = pkg + "." + type.getFullName().substring(pkg.isEmpty() ? 0 : pkg.length() + 1).replace('.', '_');
    if (isString(v)) {
      if (type.findValueByName(v.getAsString()) == null) {
        throw new InvalidProtocolBufferException("unknown value " + GoQuote.q(v.getAsString()) + " for enum " + goType);
      }
      return v;
    }
    return integer(v, goType, 32, true);
  }

  /**
   * A quoted integer: jsonpb drops the quotes and json.Unmarshal reads the text between them, so
   * {@code " 1"} is 1, {@code "x"} fails as Go's scanner fails on x and {@code "null"} is unset.
   */
  private static JsonElement unquoted(JsonElement v) throws InvalidProtocolBufferException {
    if (!isString(v)) {
      return v;
    }
    try {
      GoJsonDecoder.checkValid(v.getAsString().getBytes(StandardCharsets.UTF_8));
    } catch (GoJsonDecoder.DecodeException e) {
      throw new InvalidProtocolBufferException(e.getMessage());
    }
    return JsonParser.parseString(v.getAsString());
  }

  /** encoding/json's strconv.ParseInt/ParseUint of a number into a Go integer type of that size. */
  private static JsonElement integer(JsonElement v, String goType, int bits, boolean signed)
      throws InvalidProtocolBufferException {
    if (v.isJsonNull()) {
      return null;
    }
    String text = expect(v, kindOf(v).equals("number"), goType).getAsString();
    BigInteger n = text.matches("-?[0-9]+") ? new BigInteger(text) : null;
    BigInteger min = signed ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
    BigInteger max = min.add(BigInteger.ONE.shiftLeft(bits)).subtract(BigInteger.ONE);
    if (n == null || n.compareTo(min) < 0 || n.compareTo(max) > 0) {
      throw new InvalidProtocolBufferException("json: cannot unmarshal number " + text + " into Go value of type " + goType);
    }
    return v;
  }

  /** A []byte as encoding/json reads one: base64 text, or an array of numbers 0..255. */
  private static JsonElement bytes(JsonElement v) throws InvalidProtocolBufferException {
    if (isString(v)) {
      return new JsonPrimitive(Base64.getEncoder().encodeToString(base64(v.getAsString().getBytes(StandardCharsets.UTF_8))));
    }
    JsonArray items = expect(v, v.isJsonArray(), "[]uint8").getAsJsonArray();
    byte[] out = new byte[items.size()];
    for (int i = 0; i < out.length; i++) {
      JsonElement n = integer(items.get(i), "uint8", 8, false);
      out[i] = n == null ? 0 : (byte) n.getAsInt();
    }
    return new JsonPrimitive(Base64.getEncoder().encodeToString(out));
  }

  /**
   * encoding/base64's StdEncoding.Decode, quantum by quantum: CR and LF skipped anywhere, padding
   * required, its error offsets ({@code illegal base64 data at input byte N}) as Go reports them.
   */
  private static byte[] base64(byte[] src) throws InvalidProtocolBufferException {
    StringBuilder digits = new StringBuilder(src.length);
    for (int si = 0, j = 0; si < src.length || j > 0; j %= 4) {
      if (si == src.length) {
        throw corrupt(si - j); // a quantum cut short
      }
      byte c = src[si++];
      if (BASE64_DIGIT[c & 0xff]) {
        digits.append((char) c);
        j++;
      } else if (c != '\n' && c != '\r') {
        if (c != '=' || j < 2) {
          throw corrupt(si - 1);
        }
        if (j == 2) { // "==" expected, the first one read
          si = skipNewlines(src, si);
          if (si == src.length || src[si] != '=') {
            throw corrupt(si == src.length ? si : si - 1);
          }
          si++;
        }
        if (skipNewlines(src, si) < src.length) {
          throw corrupt(skipNewlines(src, si)); // data after the padding
        }
        break;
      }
    }
    return Base64.getDecoder().decode(digits.toString());
  }

  private static int skipNewlines(byte[] src, int si) {
    while (si < src.length && (src[si] == '\n' || src[si] == '\r')) {
      si++;
    }
    return si;
  }

  private static InvalidProtocolBufferException corrupt(int offset) {
    return new InvalidProtocolBufferException("illegal base64 data at input byte " + offset);
  }

  private static boolean isString(JsonElement v) {
    return v.isJsonPrimitive() && v.getAsJsonPrimitive().isString();
  }

  private static JsonElement expect(JsonElement v, boolean fits, String goType) throws InvalidProtocolBufferException {
    if (!fits) {
      throw typeError(v, goType);
    }
    return v;
  }

  private static String kindOf(JsonElement v) {
    if (v.isJsonObject() || v.isJsonArray()) {
      return v.isJsonObject() ? "object" : "array";
    }
    JsonPrimitive p = v.getAsJsonPrimitive();
    return p.isString() ? "string" : p.isNumber() ? "number" : "bool";
  }

  /** encoding/json's UnmarshalTypeError with no struct field (jsonpb unmarshals field by field). */
  private static InvalidProtocolBufferException typeError(JsonElement v, String goType) {
    return new InvalidProtocolBufferException("json: cannot unmarshal " + kindOf(v) + " into Go value of type " + goType);
  }
}
