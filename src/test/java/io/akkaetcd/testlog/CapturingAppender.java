package io.akkaetcd.testlog;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.Layout;

/**
 * logback-test.xml's only appender: every event, laid out by the configured pattern, goes to
 * {@link CapturedLogs} instead of the console.
 */
public final class CapturingAppender extends AppenderBase<ILoggingEvent> {
  private Layout<ILoggingEvent> layout;

  public void setLayout(Layout<ILoggingEvent> layout) {
    this.layout = layout;
  }

  @Override
  public void start() {
    if (layout == null) {
      addError("no layout for appender " + name);
      return;
    }
    super.start();
  }

  @Override
  protected void append(ILoggingEvent event) {
    CapturedLogs.append(layout.doLayout(event));
  }
}
