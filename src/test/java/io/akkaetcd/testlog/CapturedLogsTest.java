package io.akkaetcd.testlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Runs under {@link ServerLogsOnFailure} (auto-detected), which began a capture for this class. */
class CapturedLogsTest {
  @Test
  void logEventsGoToTheCaptureNotTheConsole() {
    long before = CapturedLogs.mark();
    LoggerFactory.getLogger("io.akkaetcd.server.EtcdServer").info("member {} ready", "abc");
    String captured = CapturedLogs.between(before, CapturedLogs.mark());
    assertTrue(captured.contains("INFO") && captured.contains("EtcdServer member abc ready"), captured);
  }

  @Test
  void marksStayValidWhenTheOldestTextIsDropped() {
    long start = CapturedLogs.mark();
    CapturedLogs.append("x".repeat(CapturedLogs.MAX_CHARS));
    long mark = CapturedLogs.mark();
    CapturedLogs.append("tail\n");
    assertEquals("tail\n", CapturedLogs.between(mark, CapturedLogs.mark()));
    String fromStart = CapturedLogs.between(start, CapturedLogs.mark());
    assertTrue(fromStart.startsWith("[... 5 characters dropped ...]\n"), fromStart.substring(0, 40));
  }

  @Test
  void aReleasedProcessLogIsShownUntilTheTestEndsThenDeleted(@TempDir Path dir) throws IOException {
    Path live = Files.writeString(dir.resolve("live.log"), "live line\n");
    Path done = Files.writeString(dir.resolve("done.log"), "done line\n");
    CapturedLogs.attach("m1", live);
    CapturedLogs.attach("m2", done);
    CapturedLogs.release(done);
    String shown = CapturedLogs.processLogs();
    assertTrue(shown.contains("---- m1") && shown.contains("live line") && shown.contains("done line"), shown);
    CapturedLogs.dropReleased();
    assertFalse(Files.exists(done));
    assertTrue(Files.exists(live));
    assertFalse(CapturedLogs.processLogs().contains("done line"));
    CapturedLogs.release(live);
    CapturedLogs.dropReleased();
  }
}
