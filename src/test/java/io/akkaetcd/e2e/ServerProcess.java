package io.akkaetcd.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server as a separate process on loopback: real etcd (Debian's etcd-server) or akka-etcd
 * (this build's Main on the test class path), started with the same etcd flags. Ready once
 * {@code etcdctl endpoint health} succeeds. {@link #kill()} is kill -9; {@link #stop()} is
 * SIGTERM and a wait; {@link #start()} again reuses the data directory.
 */
final class ServerProcess implements AutoCloseable {
  enum Kind { ETCD, AKKA_ETCD }

  private final Kind kind;
  private final Path dataDir;
  private final Path logFile;
  private final int clientPort;
  private final int peerPort;
  private final String advertisedPeerUrl;
  private final List<String> extraFlags;
  private Process process;

  private ServerProcess(Kind kind, String advertisedPeerUrl, List<String> extraFlags) {
    try {
      this.kind = kind;
      this.dataDir = Files.createTempDirectory(kind.name().toLowerCase() + "-data");
      this.logFile = Files.createTempFile(kind.name().toLowerCase(), ".log");
      this.clientPort = Ports.free();
      this.peerPort = Ports.free();
      this.advertisedPeerUrl = advertisedPeerUrl != null ? advertisedPeerUrl : "http://127.0.0.1:" + peerPort;
      this.extraFlags = List.copyOf(extraFlags);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ServerProcess start(Kind kind, List<String> extraFlags) {
    return start(kind, null, extraFlags);
  }

  /**
   * Starts a server that advertises {@code advertisedPeerUrl}: member and cluster ids derive from
   * it, so two servers given the same one have the same ids (each still listens on its own port).
   */
  static ServerProcess start(Kind kind, String advertisedPeerUrl, List<String> extraFlags) {
    ServerProcess s = new ServerProcess(kind, advertisedPeerUrl, extraFlags);
    s.start();
    return s;
  }

  String endpoint() {
    return "127.0.0.1:" + clientPort;
  }

  String clientUrl() {
    return "http://" + endpoint();
  }

  Kind kind() {
    return kind;
  }

  private List<String> flags() {
    List<String> f = new ArrayList<>(List.of(
        "--name", "m1", "--data-dir", dataDir.toString(),
        "--listen-client-urls", clientUrl(), "--advertise-client-urls", clientUrl(),
        "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
        "--initial-advertise-peer-urls", advertisedPeerUrl,
        "--initial-cluster", "m1=" + advertisedPeerUrl));
    f.addAll(extraFlags);
    return f;
  }

  void start() {
    List<String> cmd = new ArrayList<>();
    if (kind == Kind.ETCD) {
      cmd.add("etcd");
    } else {
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx256m");
      cmd.add("-XX:+UseSerialGC");
      cmd.add("-cp");
      cmd.add(System.getProperty("java.class.path"));
      cmd.add("io.akkaetcd.server.Main");
    }
    cmd.addAll(flags());
    try {
      process = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd.get(0), e);
    }
    awaitHealthy(Duration.ofSeconds(60));
  }

  private void awaitHealthy(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(kind + " exited with " + process.exitValue() + ":\n" + log());
      }
      if (Etcdctl.run(endpoint(), "endpoint", "health", "--command-timeout=1s").exit() == 0) {
        return;
      }
    }
    throw new IllegalStateException(kind + " not healthy within " + timeout + ":\n" + log());
  }

  /** kill -9: no shutdown hook runs. */
  void kill() {
    process.destroyForcibly();
    waitExit();
  }

  /** SIGTERM, then wait for the process to end. */
  void stop() {
    process.destroy();
    waitExit();
  }

  private void waitExit() {
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  String log() {
    try {
      return Files.readString(logFile);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      kill();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort
    }
    logFile.toFile().delete();
  }
}
