package io.akkaetcd.testlog;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server logs of the running test class, kept out of the console: what in-process members log
 * (every logback event of the test JVM, see {@link CapturingAppender}) and the log files of
 * server processes the tests started ({@link #attach}). {@link ServerLogsOnFailure} prints them
 * for a test that failed and drops them otherwise.
 *
 * <p>Test classes run one after another in one JVM, so one capture at a time is kept; it holds at
 * most {@link #MAX_CHARS} characters, dropping the oldest. Positions ({@link #mark}) count every
 * character ever appended, so a mark stays valid after the oldest ones were dropped.
 */
public final class CapturedLogs {
  static final int MAX_CHARS = 8 << 20;
  /** A process log is shown from its last this many bytes. */
  static final int MAX_FILE_TAIL = 256 << 10;

  private static final StringBuilder buffer = new StringBuilder(); // guarded by CapturedLogs.class
  private static long dropped; // characters dropped from the front, guarded by CapturedLogs.class
  /** Live and released process logs, by file, with their labels; guarded by CapturedLogs.class. */
  private static final Map<Path, String> files = new LinkedHashMap<>();
  private static final List<Path> released = new ArrayList<>(); // guarded by CapturedLogs.class
  private static volatile boolean active;

  private CapturedLogs() {}

  static synchronized void append(String text) {
    buffer.append(text);
    int excess = buffer.length() - MAX_CHARS;
    if (excess > 0) {
      buffer.delete(0, excess);
      dropped += excess;
    }
  }

  /** The position after everything appended so far. */
  static synchronized long mark() {
    return dropped + buffer.length();
  }

  /** What was appended from {@code from} up to {@code to} (as far as it is still held). */
  static synchronized String between(long from, long to) {
    int start = (int) Math.max(0, from - dropped);
    int end = (int) Math.max(start, Math.min(buffer.length(), to - dropped));
    return (from < dropped ? "[... " + (dropped - from) + " characters dropped ...]\n" : "")
        + buffer.substring(start, end);
  }

  /** Starts a fresh capture (a test class begins): what earlier classes left is dropped. */
  static synchronized void begin() {
    dropped += buffer.length();
    buffer.setLength(0);
    active = true;
  }

  /**
   * A server process's log file, to be shown if the test fails while the process runs or before
   * the test ends. Outside a capture (no {@link ServerLogsOnFailure}) nothing is kept.
   */
  public static synchronized void attach(String label, Path logFile) {
    if (active) {
      files.put(logFile, label);
    }
  }

  /**
   * The process that wrote {@code logFile} is done with it: the file is deleted once the running
   * test ends (shown first if it failed), at once outside a capture.
   */
  public static synchronized void release(Path logFile) {
    if (active && files.containsKey(logFile)) {
      released.add(logFile);
    } else {
      deleteQuietly(logFile);
    }
  }

  /** Every attached process log, each from its last {@link #MAX_FILE_TAIL} bytes, labelled. */
  static synchronized String processLogs() {
    StringBuilder out = new StringBuilder();
    files.forEach((file, label) -> out.append("---- ").append(label).append(" (").append(file).append(")\n")
        .append(tail(file)));
    return out.toString();
  }

  /** Deletes the released process logs (a test ended); the others stay attached. */
  static synchronized void dropReleased() {
    released.forEach(f -> {
      files.remove(f);
      deleteQuietly(f);
    });
    released.clear();
  }

  /** The test class ended: every released log is deleted, the capture stops. */
  static synchronized void end() {
    dropReleased();
    files.clear();
    active = false;
  }

  private static String tail(Path file) {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long start = Math.max(0, f.length() - MAX_FILE_TAIL);
      byte[] bytes = new byte[(int) (f.length() - start)];
      f.seek(start);
      f.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      return (start > 0 ? "[... first " + start + " bytes left out ...]\n" : "") + text
          + (text.endsWith("\n") || text.isEmpty() ? "" : "\n");
    } catch (IOException e) {
      return "(cannot read: " + e + ")\n";
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a temp file; best effort
    }
  }
}
