package io.akkaetcd.server;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Context;
import ch.qos.logback.core.encoder.Encoder;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.Locale;
import net.logstash.logback.argument.StructuredArgument;
import org.slf4j.helpers.MessageFormatter;
import net.logstash.logback.composite.AbstractFieldJsonProvider;
import net.logstash.logback.composite.JsonWritingUtils;
import net.logstash.logback.composite.loggingevent.ArgumentsJsonProvider;
import net.logstash.logback.composite.loggingevent.LoggingEventFormattedTimestampJsonProvider;
import net.logstash.logback.composite.loggingevent.MdcJsonProvider;
import net.logstash.logback.composite.loggingevent.StackTraceJsonProvider;
import net.logstash.logback.encoder.LoggingEventCompositeJsonEncoder;

/**
 * --logger=zap: one JSON object a line, shaped as etcd's zap production encoder writes it:
 * {@code {"level":"info","ts":"2006-01-02T15:04:05.000Z0700","caller":"pkg/File.java:12","msg":...}}
 * then the event's structured arguments ({@code kv("took", ...)}) and MDC as fields, and a
 * "stacktrace" for a throwable. Jackson (through logstash-logback-encoder) does all escaping.
 */
final class ZapJson {
  private ZapJson() {}

  static Encoder<ILoggingEvent> encoder(Context context) {
    LoggingEventCompositeJsonEncoder encoder = new LoggingEventCompositeJsonEncoder();
    encoder.setContext(context);
    var providers = encoder.getProviders();
    providers.addProvider(new Level());
    LoggingEventFormattedTimestampJsonProvider ts = new LoggingEventFormattedTimestampJsonProvider();
    ts.setFieldName("ts");
    ts.setPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXX"); // zap's ISO8601TimeEncoder: Z or +0100
    providers.addProvider(ts);
    providers.addProvider(new Caller());
    providers.addProvider(new Msg());
    providers.addProvider(new ArgumentsJsonProvider());
    providers.addProvider(new MdcJsonProvider());
    StackTraceJsonProvider stack = new StackTraceJsonProvider();
    stack.setFieldName("stacktrace");
    providers.addProvider(stack);
    encoder.start();
    return encoder;
  }

  /**
   * zap's "msg": the message alone. A structured argument is written as its own field, so its
   * placeholder is left empty here instead of repeating it as key=value.
   */
  static final class Msg extends AbstractFieldJsonProvider<ILoggingEvent> {
    Msg() {
      setFieldName("msg");
    }

    @Override
    public void writeTo(JsonGenerator generator, ILoggingEvent event) throws IOException {
      Object[] args = event.getArgumentArray();
      String text;
      if (args == null || args.length == 0) {
        text = event.getFormattedMessage();
      } else {
        Object[] shown = args.clone();
        for (int i = 0; i < shown.length; i++) {
          if (shown[i] instanceof StructuredArgument) {
            shown[i] = "";
          }
        }
        text = MessageFormatter.arrayFormat(event.getMessage(), shown).getMessage().replaceAll(" {2,}", " ").strip();
      }
      JsonWritingUtils.writeStringField(generator, getFieldName(), text);
    }
  }

  /** zap's lower-case level names (debug, info, warn, error). */
  static final class Level extends AbstractFieldJsonProvider<ILoggingEvent> {
    Level() {
      setFieldName("level");
    }

    @Override
    public void writeTo(JsonGenerator generator, ILoggingEvent event) throws IOException {
      JsonWritingUtils.writeStringField(generator, getFieldName(), event.getLevel().toString().toLowerCase(Locale.ROOT));
    }
  }

  /** zap's short caller, "package/File.go:line", here the package below io.akkaetcd and the Java file. */
  static final class Caller extends AbstractFieldJsonProvider<ILoggingEvent> {
    Caller() {
      setFieldName("caller");
    }

    @Override
    public void writeTo(JsonGenerator generator, ILoggingEvent event) throws IOException {
      StackTraceElement[] callers = event.getCallerData();
      if (callers == null || callers.length == 0) {
        return;
      }
      StackTraceElement c = callers[0];
      String cls = c.getClassName().replaceFirst("^io\\.akkaetcd\\.", "");
      int dot = cls.lastIndexOf('.');
      String pkg = dot < 0 ? "" : cls.substring(0, dot) + "/";
      String file = c.getFileName() != null ? c.getFileName() : cls.substring(dot + 1) + ".java";
      JsonWritingUtils.writeStringField(generator, getFieldName(), pkg + file + ":" + c.getLineNumber());
    }
  }
}
