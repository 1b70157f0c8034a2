package io.akkaetcd.examples.election;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One node of the example as a JVM of its own ({@link ElectionApp} on the test class path) with a
 * fresh data directory and free loopback ports. Its standard output goes to {@link Lines}, its
 * logs (stderr) to target/node-logs, whose tail {@link #logTail} shows when a test fails. {@link #kill()} is kill -9;
 * a node that ends otherwise says {@code EXITED <status>}.
 */
final class NodeProcess implements AutoCloseable {
  private final String name;
  private final Lines lines;
  private final int clientPort = FreePorts.next();
  private final int peerPort = FreePorts.next();
  private final Path dataDir;
  private final Path log;
  private Process process;
  private volatile boolean killed;

  NodeProcess(String name, Lines lines) {
    this.name = name;
    this.lines = lines;
    try {
      this.dataDir = Files.createTempDirectory("election-" + name);
      // Kept after the run, replaced by the next: target/node-logs/<name>.log
      this.log = Files.createDirectories(Path.of("target", "node-logs")).resolve(name + ".log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String name() {
    return name;
  }

  String clientUrl() {
    return "http://127.0.0.1:" + clientPort;
  }

  String peerUrl() {
    return "http://127.0.0.1:" + peerPort;
  }

  /** Starts the JVM as a member of {@code initialCluster} (etcd's name=peer-url list). */
  void start(String initialCluster) {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2"));
    member("name", name, cmd);
    member("data-dir", dataDir.toString(), cmd);
    member("listen-client-urls", clientUrl(), cmd);
    member("advertise-client-urls", clientUrl(), cmd);
    member("listen-peer-urls", peerUrl(), cmd);
    member("initial-advertise-peer-urls", peerUrl(), cmd);
    member("initial-cluster", initialCluster, cmd);
    member("initial-cluster-token", "election-example", cmd);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ElectionApp.class.getName()));
    try {
      process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.to(log.toFile())).start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread reader = new Thread(this::readOutput, "stdout-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  private static void member(String flag, String value, List<String> cmd) {
    cmd.add("-Dakka-etcd." + flag + "=" + value);
  }

  private void readOutput() {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(name, line);
      }
    } catch (IOException e) {
      // the process is gone
    }
    try {
      int exit = process.waitFor();
      if (!killed) {
        lines.add(name, "EXITED " + exit);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** kill -9: the node gets no chance to hand anything over. */
  void kill() throws InterruptedException {
    killed = true;
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " did not die");
    }
  }

  String logTail(int count) {
    try {
      List<String> all = Files.readAllLines(log);
      return name + "'s log:\n" + String.join("\n", all.subList(Math.max(0, all.size() - count), all.size()));
    } catch (IOException e) {
      return name + ": no log (" + e + ")";
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (process != null && process.isAlive()) {
      kill();
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
