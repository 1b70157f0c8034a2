package io.akkaetcd.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One server process on free 127.0.0.1 ports with a temp dir holding its data dir and its log.
 * Readiness is etcdctl {@code endpoint health} succeeding, polled for at most 60 s. Not
 * thread-safe: driven by one test thread.
 */
abstract class ServerProcess implements ServerUnderTest {
  static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  static final String MEMBER_NAME = "it1";

  private final String label;
  private final Path baseDir;
  private final Path dataDir;
  private final Path logFile;
  protected final int clientPort;
  protected final int peerPort;
  protected final List<String> extraFlags;
  private Process process;
  private boolean closed;

  ServerProcess(String label, List<String> extraFlags) {
    this.label = label;
    this.extraFlags = List.copyOf(extraFlags);
    this.clientPort = FreePorts.next();
    int peer = FreePorts.next();
    while (peer == clientPort) {
      peer = FreePorts.next();
    }
    this.peerPort = peer;
    try {
      this.baseDir = Files.createTempDirectory("it-" + label + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.dataDir = baseDir.resolve("data");
    this.logFile = baseDir.resolve("server.log");
  }

  /** The full command line that starts the server. */
  protected abstract List<String> command();

  /** etcd's flags for a single member on this object's ports and data dir, then the extras. */
  protected List<String> etcdFlags() {
    String client = "http://127.0.0.1:" + clientPort;
    String peer = "http://127.0.0.1:" + peerPort;
    List<String> flags = new ArrayList<>(List.of(
        "--name", MEMBER_NAME,
        "--data-dir", dataDir.toString(),
        "--listen-client-urls", client,
        "--advertise-client-urls", client,
        "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer,
        "--initial-cluster", MEMBER_NAME + "=" + peer));
    flags.addAll(extraFlags);
    return flags;
  }

  /** Starts the process and waits until healthy; on failure stops it and cleans up. */
  final ServerProcess launch() {
    try {
      restart();
      return this;
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  @Override
  public final void restart() {
    if (closed) {
      throw new IllegalStateException(label + " is closed");
    }
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(label + " is still running");
    }
    try {
      String shown = String.join(" ", command())
          .replace(System.getProperty("java.class.path"), "<test class path>");
      Files.writeString(logFile, "=== start " + shown + "\n",
          StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      process = new ProcessBuilder(command())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + label, e);
    }
    awaitHealthy();
  }

  private void awaitHealthy() {
    Etcdctl etcdctl = new Etcdctl(endpoint());
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new AssertionError(label + " exited with " + process.exitValue()
            + " before becoming healthy; log tail:\n" + logTail());
      }
      if (etcdctl.healthy()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(label + " not healthy after " + READY_TIMEOUT.toSeconds()
            + " s on " + clientUrl() + "; log tail:\n" + logTail());
      }
      Poll.pause();
    }
  }

  @Override
  public String clientUrl() {
    return "http://127.0.0.1:" + clientPort;
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public Path dataDir() {
    return dataDir;
  }

  /** True while the server process runs. */
  boolean isRunning() {
    return process != null && process.isAlive();
  }

  @Override
  public int stop() {
    if (process == null) {
      return 0;
    }
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        String tail = logTail();
        kill();
        throw new AssertionError(label + " did not exit within " + STOP_TIMEOUT.toSeconds()
            + " s of SIGTERM; log tail:\n" + tail);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
      throw new IllegalStateException("interrupted", e);
    }
    return process.exitValue();
  }

  @Override
  public void kill() {
    if (process == null) {
      return;
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(label + " survived SIGKILL for " + STOP_TIMEOUT.toSeconds() + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      kill();
    } finally {
      deleteRecursively(baseDir);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temp dir left behind is harmless
    }
  }

  @Override
  public String toString() {
    return label + "@" + clientUrl();
  }
}
