package io.akkaetcd.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The server's logging when no logback XML is on the class path (logback finds this through its
 * ServiceLoader, after logback-test.xml and logback.xml): one stderr appender, the levels {@link
 * LogFlags#apply} sets. Built in code, not from a logback.xml: Joran's XML set-up was a tenth of
 * a start and of a port clash's report (issue #32). Read once, as the first logger is made.
 */
public final class LogDefaults extends ContextAwareBase implements Configurator {
  /** The appender's name; {@link LogFlags} copies its pattern to every other output. */
  static final String APPENDER = "STDERR";
  private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} %msg%n";

  @Override
  public void configure(LoggerContext context) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName(APPENDER);
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    String level = System.getProperty("akka-etcd.log-level", "INFO");
    context.getLogger("akka").setLevel(Level.toLevel(System.getProperty("akka-etcd.akka-log-level", "WARN"), Level.WARN));
    context.getLogger("io.akkaetcd").setLevel(Level.toLevel(level, Level.INFO));
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(level, Level.INFO));
    root.addAppender(stderr);
  }
}
