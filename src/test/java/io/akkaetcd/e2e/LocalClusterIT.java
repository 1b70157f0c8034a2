package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.testlog.CapturedLogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/local-cluster (issue #32): three members on free ports (--base-port) in a temporary --dir; a
 * member killed with -9 is reported; `bin/local-cluster restart infra3` from another process brings
 * it back with its data; SIGINT (Ctrl-C) stops every member, the restarted one too, and prints
 * their last log lines. Runs after the package phase (failsafe): bin/akka-etcd uses the built jar.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LocalClusterIT {
  private static final Path ROOT = Path.of("").toAbsolutePath();

  @Test
  void reportsADeadMemberRestartsItAndStopsEveryMemberOnCtrlC(@TempDir Path dir) throws Exception {
    int base = Ports.freeRange(6);
    Path out = dir.resolve("local-cluster.out");
    Path clusterDir = dir.resolve("lc");
    CapturedLogs.attach("bin/local-cluster", out);
    Process supervisor = new ProcessBuilder(ROOT.resolve("bin/local-cluster").toString(), "--dir", clusterDir.toString(),
        "--base-port", Integer.toString(base), "--heap", "128m").redirectErrorStream(true)
        .redirectOutput(out.toFile()).start();
    List<String> endpoints = List.of("127.0.0.1:" + base, "127.0.0.1:" + (base + 2), "127.0.0.1:" + (base + 4));
    try {
      awaitLine(out, "export ENDPOINTS=" + String.join(",", endpoints), supervisor);
      for (String e : endpoints) {
        awaitHealthy(e, supervisor, out);
      }
      assertEquals("OK\n", Etcdctl.run(endpoints.get(0), "put", "k", "before-the-kill").stdout());

      long infra3 = pid(clusterDir, "infra3");
      ProcessHandle.of(infra3).orElseThrow().destroyForcibly();
      awaitLine(out, "local-cluster: infra3 died (exit 137)", supervisor);

      Commands.Result restart = Commands.ok(ROOT, 60, "bin/local-cluster", "--dir", clusterDir.toString(), "restart", "infra3");
      long restarted = pid(clusterDir, "infra3");
      assertTrue(restarted != infra3, "the same pid after restart");
      assertTrue(restart.output().contains("local-cluster: restarted infra3 (pid " + restarted + ")"), restart.output());
      awaitHealthy(endpoints.get(2), supervisor, out);
      assertEquals("k\nbefore-the-kill\n", Etcdctl.run(endpoints.get(2), "get", "k").stdout());

      List<Long> members = List.of(pid(clusterDir, "infra1"), pid(clusterDir, "infra2"), restarted);
      Commands.ok(ROOT, 10, "kill", "-INT", Long.toString(supervisor.pid()));
      assertTrue(supervisor.waitFor(90, TimeUnit.SECONDS), "local-cluster did not stop on SIGINT:\n" + read(out));
      String log = read(out);
      for (String name : List.of("infra1", "infra2", "infra3")) {
        assertTrue(log.contains("local-cluster: " + name + "'s last log lines"), name + ":\n" + log);
      }
      for (long pid : members) {
        assertTrue(ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true), "member " + pid + " outlived local-cluster");
      }
      assertTrue(!Files.exists(clusterDir.resolve("control")) && !Files.exists(clusterDir.resolve("infra3.pid")),
          "control files left behind");
      assertTrue(Files.size(clusterDir.resolve("infra3.log")) > 0, "no log kept");
    } finally {
      if (supervisor.isAlive()) {
        supervisor.descendants().forEach(ProcessHandle::destroyForcibly);
        supervisor.destroyForcibly();
      }
    }
  }

  private static long pid(Path dir, String member) throws IOException {
    return Long.parseLong(Files.readString(dir.resolve(member + ".pid")).strip());
  }

  private static void awaitHealthy(String endpoint, Process supervisor, Path out) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(180));
    while (Etcdctl.run(endpoint, "endpoint", "health", "--command-timeout=1s").exit() != 0) {
      assertTrue(supervisor.isAlive(), "local-cluster exited:\n" + read(out));
      assertTrue(Instant.now().isBefore(deadline), endpoint + " not healthy within 180 s");
    }
  }

  private static void awaitLine(Path out, String line, Process supervisor) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(180));
    while (read(out).lines().noneMatch(l -> l.startsWith(line))) {
      assertTrue(supervisor.isAlive(), "local-cluster exited:\n" + read(out));
      assertTrue(Instant.now().isBefore(deadline), "no '" + line + "' within 180 s");
      LockSupport.parkNanos(100_000_000L); // polling its output, bounded by the deadline
    }
  }

  private static String read(Path p) {
    return PackageIT.read(p);
  }
}
