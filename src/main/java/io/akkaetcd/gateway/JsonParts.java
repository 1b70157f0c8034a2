package io.akkaetcd.gateway;

import akka.util.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.List;
import java.util.Map;

/**
 * The JSON of a message that comes in parts ({@code PipelineMethod.Answer}): each part a message
 * of the same type with some of its fields in field order, a repeated field possibly going on in
 * the next part. The parts' JSON, concatenated, equals {@link JsonMapping#print} of the merged
 * message, since the printer also writes fields in field order, and every field or element is
 * printed by it: a field as in a message of that field alone. Use once, confined to its stream.
 */
final class JsonParts {
  /** The repeated field whose array is open, continued by the next part if it starts with it. */
  private FieldDescriptor open;
  private boolean started;
  private boolean anyField;

  /** The JSON of {@code part}, after that of the parts before it. */
  ByteString next(Message part) {
    StringBuilder out = new StringBuilder();
    if (!started) {
      started = true;
      out.append('{');
    }
    for (Map.Entry<FieldDescriptor, Object> field : part.getAllFields().entrySet()) {
      FieldDescriptor d = field.getKey();
      if (d.isRepeated() && d.equals(open)) {
        for (Object element : (List<?>) field.getValue()) {
          out.append(',').append(element(part, d, element));
        }
        continue;
      }
      close(out);
      if (anyField) {
        out.append(',');
      }
      anyField = true;
      out.append('"').append(d.getName()).append("\":");
      if (d.isRepeated()) {
        String separator = "[";
        for (Object element : (List<?>) field.getValue()) {
          out.append(separator).append(element(part, d, element));
          separator = ",";
        }
        open = d;
      } else {
        out.append(alone(part, d, field.getValue(), false));
      }
    }
    return ByteString.fromString(out.toString());
  }

  /** The end of the message's JSON (also for no parts at all: an empty message). */
  ByteString end() {
    StringBuilder out = new StringBuilder(started ? "" : "{");
    close(out);
    return ByteString.fromString(out.append('}').toString());
  }

  private void close(StringBuilder out) {
    if (open != null) {
      out.append(']');
      open = null;
    }
  }

  private static String element(Message part, FieldDescriptor d, Object element) {
    return element instanceof Message m ? JsonMapping.print(m) : alone(part, d, element, true);
  }

  /** The JSON of a field's value (or one element) as printed in a message holding it alone. */
  private static String alone(Message part, FieldDescriptor d, Object value, boolean element) {
    Message.Builder only = part.newBuilderForType();
    if (element) {
      only.addRepeatedField(d, value);
    } else {
      only.setField(d, value);
    }
    String json = JsonMapping.print(only.build());
    int from = ("{\"" + d.getName() + "\":").length() + (element ? 1 : 0);
    return json.substring(from, json.length() - (element ? 2 : 1));
  }
}
