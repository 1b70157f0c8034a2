package io.akkaetcd.bbolt;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's etcd 3.4 and etcdctl for interop tests: loopback, free ports, stopped on close. */
final class RealEtcd implements AutoCloseable {
  record Result(String stdout, String stderr, int exit) {
    Result ok() {
      if (exit != 0) {
        throw new AssertionError("exit " + exit + "\n" + stdout + stderr);
      }
      return this;
    }
  }

  final String name = "bbolt-test";
  final String endpoint;
  final String peerUrl;
  private final Process process;

  private RealEtcd(Process process, String endpoint, String peerUrl) {
    this.process = process;
    this.endpoint = endpoint;
    this.peerUrl = peerUrl;
  }

  static boolean installed() {
    return Files.isExecutable(Path.of("/usr/bin/etcd")) && Files.isExecutable(Path.of("/usr/bin/etcdctl"));
  }

  static String peerUrl() throws IOException {
    return "http://127.0.0.1:" + freePort();
  }

  /** Starts etcd on {@code dataDir} (new or restored with {@code peerUrl}) and waits until healthy. */
  static RealEtcd start(Path dataDir, String peerUrl) throws Exception {
    String client = "http://127.0.0.1:" + freePort();
    Path log = Files.createTempFile("etcd", ".log");
    Process p = new ProcessBuilder("etcd", "--name", "bbolt-test", "--data-dir", dataDir.toString(),
        "--listen-client-urls", client, "--advertise-client-urls", client,
        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", "bbolt-test=" + peerUrl)
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    RealEtcd etcd = new RealEtcd(p, client, peerUrl);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (etcdctl("--endpoints=" + client, "endpoint", "health").exit() != 0) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        etcd.close();
        throw new AssertionError("etcd did not become healthy:\n" + Files.readString(log));
      }
      Thread.onSpinWait();
    }
    return etcd;
  }

  Result ctl(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("--endpoints=" + endpoint, "--command-timeout=10s"));
    all.addAll(List.of(args));
    return etcdctl(all.toArray(String[]::new));
  }

  static Result etcdctl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("etcdctl"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("etcdctl", ".out");
    Path err = Files.createTempFile("etcdctl", ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().put("ETCDCTL_API", "3");
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("etcdctl " + cmd + " did not finish in 30 s");
    }
    Result r = new Result(Files.readString(out), Files.readString(err), p.exitValue());
    Files.delete(out);
    Files.delete(err);
    return r;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
