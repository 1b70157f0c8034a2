package io.akkaetcd.server;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.OutputStreamAppender;
import io.akkaetcd.server.Flags.FlagException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * etcd's logging flags, validated as etcd 3.4 validates them: --logger (capnslog writes logback's
 * text lines, zap JSON lines shaped as etcd's zap output: {@link ZapJson}), --log-level (etcd's levels, dpanic/panic/fatal logging as errors),
 * --debug (debug level), --log-outputs (stderr, stdout, default = stderr, or file paths; capnslog
 * takes one output, zap several) with its old name --log-output.
 */
public record LogFlags(String logger, String level, List<String> outputs) {
  private static final List<String> LEVELS = List.of("debug", "info", "warn", "error", "dpanic", "panic", "fatal");
  /** The appender LogDefaults makes; every output gets a copy of its encoder's pattern. */
  private static final String CONFIGURED_APPENDER = LogDefaults.APPENDER;

  public static LogFlags fromFlags(Map<String, String> v) {
    String logger = v.get("logger");
    if (!logger.equals("zap") && !logger.equals("capnslog")) {
      throw new FlagException("unknown logger option \"" + logger + "\"");
    }
    String level = v.get("log-level");
    if (!LEVELS.contains(level)) {
      throw new FlagException(FlagException.Kind.FATAL, "unknown level \"" + level + "\" for --log-level (one of "
          + String.join(", ", LEVELS) + ")");
    }
    // etcd takes the old name when only it was changed.
    String outputsFlag = v.get("log-outputs").equals("default") ? v.get("log-output") : v.get("log-outputs");
    List<String> outputs = Arrays.stream(outputsFlag.split(",")).map(String::trim).filter(s -> !s.isEmpty())
        .distinct().toList();
    if (outputs.isEmpty()) {
      outputs = List.of("default");
    }
    if (logger.equals("capnslog") && outputs.size() > 1) {
      throw new FlagException("--logger=capnslog supports only 1 value in '--log-outputs', got ["
          + outputs.stream().map(o -> "\"" + o + "\"").collect(Collectors.joining(" ")) + "]");
    }
    return new LogFlags(logger, v.get("debug").equals("true") ? "debug" : level, outputs);
  }

  /** logback's level for etcd's. */
  public String logbackLevel() {
    return switch (level.toLowerCase(Locale.ROOT)) {
      case "debug" -> "DEBUG";
      case "info" -> "INFO";
      case "warn" -> "WARN";
      default -> "ERROR";
    };
  }

  /**
   * Sets the levels LogDefaults reads; must run before the first logger is created. Then routes
   * the root logger's output to {@link #outputs}.
   */
  public void apply() {
    String l = logbackLevel();
    System.setProperty("akka-etcd.log-level", l);
    System.setProperty("akka-etcd.akka-log-level", l.equals("DEBUG") ? "INFO" : "WARN");
    boolean zap = logger.equals("zap");
    if (!zap && (outputs.equals(List.of("default")) || outputs.equals(List.of("stderr")))) {
      return;
    }
    if (!(org.slf4j.LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Appender<ILoggingEvent> configured = root.getAppender(CONFIGURED_APPENDER);
    String pattern = configured instanceof OutputStreamAppender<ILoggingEvent> o
        && o.getEncoder() instanceof PatternLayoutEncoder p ? p.getPattern() : "%d %-5level %logger{0} %msg%n";
    List<Appender<ILoggingEvent>> routed = new ArrayList<>();
    for (String out : outputs) {
      routed.add(appender(context, out, zap ? ZapJson.encoder(context) : patternEncoder(context, pattern)));
    }
    root.detachAndStopAllAppenders();
    routed.forEach(root::addAppender);
  }

  private static Encoder<ILoggingEvent> patternEncoder(LoggerContext context, String pattern) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(pattern);
    encoder.start();
    return encoder;
  }

  private static Appender<ILoggingEvent> appender(LoggerContext context, String output, Encoder<ILoggingEvent> encoder) {
    OutputStreamAppender<ILoggingEvent> a;
    switch (output) {
      case "stdout", "stderr", "default" -> {
        ConsoleAppender<ILoggingEvent> c = new ConsoleAppender<>();
        c.setTarget(output.equals("stdout") ? "System.out" : "System.err");
        a = c;
      }
      default -> {
        FileAppender<ILoggingEvent> f = new FileAppender<>();
        f.setFile(output);
        f.setAppend(true);
        a = f;
      }
    }
    a.setName(output);
    a.setContext(context);
    a.setEncoder(encoder);
    a.start();
    if (!a.isStarted()) {
      throw new FlagException("cannot open log output \"" + output + "\"");
    }
    return a;
  }
}
