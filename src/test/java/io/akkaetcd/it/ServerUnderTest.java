package io.akkaetcd.it;

import java.nio.file.Path;
import java.util.List;

/**
 * A single-member etcd-compatible server started for a test: real etcd or akka-etcd.
 * Implementations own a process and a temporary data dir; {@link #close()} stops the process
 * tree and deletes the dir, and must be safe to call twice.
 */
public interface ServerUnderTest extends AutoCloseable {

  /** The client URL, {@code http://127.0.0.1:P}. */
  String clientUrl();

  /** {@code 127.0.0.1:P}, as etcdctl's {@code --endpoints} and etcd's log lines spell it. */
  default String endpoint() {
    return clientUrl().substring("http://".length());
  }

  /** A short label for reports: {@code etcd} or {@code akka-etcd}. */
  String label();

  Path dataDir();

  /** The last lines of the server's own output, for failure messages. */
  String logTail();

  /** Clean shutdown: SIGTERM, then waits for the process to exit; returns its exit code. */
  int stop();

  /** Crash: SIGKILL ({@code Process.destroyForcibly()}), then waits for the process to exit. */
  void kill();

  /** Starts the server again on the same data dir and ports, and waits until it is healthy. */
  void restart();

  /** Stops the process tree (if running) and deletes the data dir. */
  @Override
  void close();

  /** Starts a server with etcd flags added to the defaults; one line per target. */
  @FunctionalInterface
  interface Launcher {
    ServerUnderTest start(List<String> extraFlags);
  }

  Launcher ETCD = EtcdProcess::start;
  Launcher AKKA_ETCD = AkkaEtcdProcess::start;

  /**
   * The server compared against real etcd: akka-etcd unless {@code -Dit.candidate=etcd}, which
   * plays every differential script etcd-vs-etcd to validate the harness itself.
   */
  static Launcher candidate() {
    return "etcd".equals(System.getProperty("it.candidate")) ? ETCD : AKKA_ETCD;
  }
}
