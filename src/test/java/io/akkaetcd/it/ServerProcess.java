package io.akkaetcd.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One single-member server process (real etcd or akka-etcd) with etcd's flags, on free ports of
 * 127.0.0.1 and a temp data dir. Ports and data dir stay the same across restarts. Stdout and
 * stderr go to a log file that {@link LogOnFailure} prints when a test fails.
 */
public abstract class ServerProcess implements TestServer {
  static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  /** Servers started and not yet closed, for printing their logs on failure. */
  static final Set<ServerProcess> LIVE = ConcurrentHashMap.newKeySet();

  private final String kind;
  private final String name = "it";
  private final Path root;
  private final Path dataDir;
  private final Path log;
  private final int clientPort;
  private final int peerPort;
  private final List<String> extraFlags;
  private Process process;
  private int starts;
  private boolean lastStopForced;

  protected ServerProcess(String kind, List<String> extraFlags) {
    this.kind = kind;
    this.extraFlags = List.copyOf(extraFlags);
    try {
      this.root = Files.createTempDirectory("it-" + kind + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.dataDir = root.resolve("data");
    this.log = root.resolve("server.log");
    this.clientPort = Ports.free();
    int p = Ports.free();
    while (p == clientPort) {
      p = Ports.free();
    }
    this.peerPort = p;
  }

  /** The program and its options, before etcd's flags. */
  protected abstract List<String> program();

  public String kind() {
    return kind;
  }

  @Override
  public String clientUrl() {
    return "http://127.0.0.1:" + clientPort;
  }

  public Path dataDir() {
    return dataDir;
  }

  public Etcdctl etcdctl() {
    return new Etcdctl(clientUrl());
  }

  /** Starts the process and waits until {@code etcdctl endpoint health} succeeds. */
  public synchronized ServerProcess start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(kind + " already running");
    }
    String peerUrl = "http://127.0.0.1:" + peerPort;
    List<String> cmd = new ArrayList<>(program());
    cmd.addAll(List.of(
        "--name", name,
        "--data-dir", dataDir.toString(),
        "--listen-client-urls", clientUrl(),
        "--advertise-client-urls", clientUrl(),
        "--listen-peer-urls", peerUrl,
        "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", name + "=" + peerUrl));
    cmd.addAll(extraFlags);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("ETCD"));
    try {
      Files.writeString(log, "=== start #" + (++starts) + ": " + String.join(" ", cmd) + "\n",
          StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    LIVE.add(this);
    awaitReady();
    return this;
  }

  private void awaitReady() {
    Instant deadline = Instant.now().plus(READY_TIMEOUT);
    Etcdctl ctl = new Etcdctl(clientUrl(), Duration.ofSeconds(10));
    Etcdctl.Result last = null;
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new AssertionError(kind + " exited with " + process.exitValue()
            + " before it was ready; log:\n" + logText());
      }
      last = ctl.run("--dial-timeout=1s", "--command-timeout=2s", "endpoint", "health");
      if (last.ok()) {
        return;
      }
      Poll.pause();
    }
    String lastText = String.valueOf(last);
    kill();
    throw new AssertionError(kind + " not healthy within " + READY_TIMEOUT + "; last check: "
        + lastText + "\nlog:\n" + logText());
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** SIGTERM, then waits for the exit (kill -9 after {@link #STOP_TIMEOUT}). */
  @Override
  public synchronized void stop() {
    terminate();
  }

  /**
   * SIGTERM, then waits for the exit; kill -9 after {@link #STOP_TIMEOUT}. Returns the exit code,
   * or -1 if it was not running; {@link #lastStopWasForced()} tells whether kill -9 was needed.
   */
  public synchronized int terminate() {
    lastStopForced = false;
    if (process == null) {
      return -1;
    }
    Process p = process;
    process = null;
    p.destroy();
    try {
      if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        appendLog("=== did not stop on SIGTERM within " + STOP_TIMEOUT + ", killing\n");
        lastStopForced = true;
        p.destroyForcibly().waitFor();
      }
      return p.exitValue();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  public synchronized boolean lastStopWasForced() {
    return lastStopForced;
  }

  /** kill -9 and wait for the process to be gone. */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    Process p = process;
    process = null;
    p.destroyForcibly();
    try {
      p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    appendLog("=== killed (SIGKILL)\n");
  }

  /** Starts again on the same data dir and ports. */
  public ServerProcess restart() {
    stop();
    return start();
  }

  /** Stops the process and deletes its temp directory. */
  @Override
  public void close() {
    try {
      stop();
    } finally {
      LIVE.remove(this);
      deleteTree(root);
    }
  }

  public String logText() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "<no log>";
    } catch (IOException e) {
      return "<log unreadable: " + e + ">";
    }
  }

  /** The last {@code maxChars} of the log. */
  public String logTail(int maxChars) {
    String s = logText();
    return s.length() <= maxChars ? s : "...\n" + s.substring(s.length() - maxChars);
  }

  private void appendLog(String line) {
    try {
      Files.writeString(log, line, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException ignored) {
      // best effort
    }
  }

  private static void deleteTree(Path p) {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException ignored) {
      // temp dir: best effort
    }
  }

  @Override
  public String toString() {
    return kind + "@" + clientUrl();
  }
}
