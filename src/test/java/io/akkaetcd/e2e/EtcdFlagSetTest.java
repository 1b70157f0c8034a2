package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * akka-etcd started as a process with the flags deployments and etcd's e2e framework give every
 * member, and the command line's answers to flags it must refuse, as an operator sees them.
 */
class EtcdFlagSetTest {

  @Test
  void aMemberStartedWithEtcdsE2eFlagsServesAndSaysWhatItIgnores() throws IOException {
    Path logFile = Files.createTempFile("akka-etcd-flags", ".log");
    // What etcd 3.4's e2e framework (etcdServerProcessConfigs) adds to name, URLs and data dir, plus
    // flags of unit files and manifests, given with the values that ask for nothing missing.
    List<String> flags = List.of(
        "--initial-cluster-token", "new", "--snapshot-count", "100000", "--quota-backend-bytes", "4294967296",
        "--strict-reconfig-check=false", "--enable-v2=false", "--experimental-initial-corrupt-check=false",
        "--client-cert-auth=false", "--auth-token", "simple", "--metrics", "basic", "--listen-metrics-urls", "",
        "--max-snapshots", "5", "--max-wals", "5", "-pre-vote", "--enable-pprof=false",
        "--experimental-watch-progress-notify-interval=5s", "--backend-batch-interval", "10ms", "-v",
        "--max-concurrent-streams", "100",
        "--logger=zap", "--log-outputs=stderr," + logFile, "--log-level", "info");
    try (ServerProcess member = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, flags)) {
      assertEquals(0, Etcdctl.run(member.endpoint(), "put", "k", "v").exit());
      assertEquals("k\nv\n", Etcdctl.run(member.endpoint(), "get", "k").stdout());
      String ignored = "--backend-batch-interval='10ms' is accepted and has no effect: akka-etcd stores its data"
          + " in LevelDB, not bbolt";
      member.awaitLogged(ignored, Duration.ofSeconds(10));
      // --logger=zap: one JSON line, so the quotes come escaped
      member.awaitLogged("\"msg\":\"flag \\\"-v\\\" is no longer supported - ignoring.\"", Duration.ofSeconds(10));
      // --log-outputs: the same lines reach the file too.
      String written = Files.readString(logFile);
      assertTrue(written.contains(ignored), written);
      assertFalse(written.contains("--enable-pprof"), "a flag at its default draws no warning");
    } finally {
      Files.deleteIfExists(logFile);
    }
  }

  /**
   * Integer flags in Go's syntax (strconv with base 0: a 0x, 0o or 0 prefix, underscores between
   * digits), which etcd takes: the limits they set hold as on etcd, request for request.
   */
  @Test
  void integerFlagsInGosSyntaxSetTheSameLimitsAsOnEtcd() {
    List<String> flags = List.of("--max-request-bytes=0x4_00", "--max-txn-ops=03");
    String big = "x".repeat(2000);
    String small = "x".repeat(500);
    // four puts in one txn: one more than --max-txn-ops (octal 3)
    String fourPuts = "\nput t1 v\nput t2 v\nput t3 v\nput t4 v\n\n\n";
    List<String> seen = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      try (ServerProcess member = ServerProcess.start(kind, flags)) {
        Etcdctl.Result tooLarge = Etcdctl.run(member.endpoint(), "put", "k", big);
        Etcdctl.Result fits = Etcdctl.run(member.endpoint(), "put", "k", small);
        Etcdctl.Result txn = Etcdctl.run(member.endpoint(), fourPuts, List.of("txn"));
        seen.add(kind + ": " + tooLarge.exit() + " " + tooLarge.error().trim() + " | " + fits.exit() + " "
            + fits.stdout().trim() + " | " + txn.exit() + " " + txn.error().trim());
      }
    }
    assertEquals("ETCD: 1 Error: etcdserver: request is too large | 0 OK | 1 Error: etcdserver: too many operations"
        + " in txn request", seen.get(0));
    assertEquals(seen.get(0).substring("ETCD".length()), seen.get(1).substring("AKKA_ETCD".length()));
  }

  /**
   * Zero is a value etcd takes for these: no request and no txn op fits, the snapshot count and
   * the watch progress interval fall back to their defaults, and the member serves reads.
   */
  @Test
  void zeroLimitsAndZeroDefaultsAsOnEtcd() {
    List<String> flags = List.of("--max-txn-ops=0", "--max-request-bytes=0", "--snapshot-count=0",
        "--experimental-watch-progress-notify-interval=0");
    List<String> seen = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      try (ServerProcess member = ServerProcess.start(kind, flags)) {
        Etcdctl.Result put = Etcdctl.run(member.endpoint(), "put", "k", "v");
        Etcdctl.Result txn = Etcdctl.run(member.endpoint(), "\nput t v\n\n\n", List.of("txn"));
        Etcdctl.Result get = Etcdctl.run(member.endpoint(), "get", "k");
        Etcdctl.Result health = Etcdctl.run(member.endpoint(), "endpoint", "health");
        seen.add(put.exit() + " " + put.error().trim() + " | " + txn.exit() + " " + txn.error().trim() + " | "
            + get.exit() + " [" + get.stdout() + "] | " + health.exit());
      }
    }
    assertEquals("1 Error: etcdserver: request is too large | 1 Error: etcdserver: too many operations in txn"
        + " request | 0 [] | 0", seen.get(0));
    assertEquals(seen.get(0), seen.get(1));
  }

  /** A negative --quota-backend-bytes turns the quota off in etcd (its passthroughQuota): so here. */
  @Test
  void aNegativeQuotaTurnsTheQuotaOffAsInEtcd() throws Exception {
    List<String> seen = new ArrayList<>();
    for (ServerProcess.Kind kind : List.of(ServerProcess.Kind.ETCD, ServerProcess.Kind.AKKA_ETCD)) {
      try (ServerProcess member = ServerProcess.start(kind, List.of("--quota-backend-bytes=-1"))) {
        Etcdctl.Result put = Etcdctl.run(member.endpoint(), "put", "k", "v");
        java.net.http.HttpResponse<String> metrics = java.net.http.HttpClient.newHttpClient().send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(member.clientUrl() + "/metrics")).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        double quota = metrics.body().lines().filter(l -> l.startsWith("etcd_server_quota_backend_bytes "))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1))).findFirst().orElseThrow();
        seen.add(put.exit() + " " + put.stdout().trim() + ", quota gauge " + quota);
        member.awaitLogged("disabling backend quota", Duration.ofSeconds(10));
      }
    }
    assertEquals("0 OK, quota gauge -1.0", seen.get(0));
    assertEquals(seen.get(0), seen.get(1));
  }

  @Test
  void aFlagAskingForAMissingFeatureStopsTheStartWithOneLine(@TempDir Path tmp) {
    Path dataDir = tmp.resolve("never");
    Run r = Run.main("--data-dir", dataDir.toString(), "--enable-v2");
    assertEquals(2, r.exit);
    assertEquals("akka-etcd: --enable-v2='true' needs etcd's v2 API (akka-etcd serves v3 only), which akka-etcd"
        + " does not have; leave the flag out or give it 'false'\n", r.stderr);
    assertFalse(Files.exists(dataDir), "nothing is created before the flags are accepted");
  }

  @Test
  void helpMalformedFlagsAndRefusedValuesAnswerAsEtcd() {
    Run help = Run.main("-h");
    assertEquals(0, help.exit);
    assertTrue(help.stdout.contains("  --strict-reconfig-check 'true'\n"), help.stdout);

    Run bad = Run.main("--max-txn-ops=x");
    assertEquals(2, bad.exit);
    assertTrue(bad.stderr.startsWith("invalid value \"x\" for flag -max-txn-ops: parse error\nUsage:\n"), bad.stderr);

    Run unknown = Run.main("--no-such-flag");
    assertEquals(2, unknown.exit);
    assertTrue(unknown.stderr.startsWith("flag provided but not defined: -no-such-flag\n"), unknown.stderr);

    // etcdmain's two lines (etcd 3.4 prints the same after its log prefix), exit 1
    Run unadvertised = Run.main("--listen-client-urls", "http://127.0.0.1:1");
    assertEquals(1, unadvertised.exit);
    assertEquals("akka-etcd: error verifying flags, --advertise-client-urls is required when --listen-client-urls is"
        + " set explicitly. See 'akka-etcd --help'.\nakka-etcd: When listening on specific address(es), this etcd"
        + " process must advertise accessible url(s) to each connected client.\n", unadvertised.stderr);

    Run checked = Run.main("--election-timeout=100");
    assertEquals(1, checked.exit);
    assertEquals("akka-etcd: error verifying flags, --election-timeout[100ms] should be at least as 5 times as"
        + " --heartbeat-interval[100ms]. See 'akka-etcd --help'.\n", checked.stderr);
  }

  /** One run of akka-etcd's Main that must end by itself within a minute. */
  private record Run(String stdout, String stderr, int exit) {
    static Run main(String... args) {
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx128m", "-cp", System.getProperty("java.class.path"), "io.akkaetcd.etcdmain.Main"));
      cmd.addAll(List.of(args));
      try {
        Path out = Files.createTempFile("akka-etcd-main", ".out");
        Path err = Files.createTempFile("akka-etcd-main", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ETCD_"));
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor();
          throw new AssertionError("akka-etcd " + List.of(args) + " did not exit: it started a member");
        }
        Run r = new Run(Files.readString(out), Files.readString(err), p.exitValue());
        Files.delete(out);
        Files.delete(err);
        return r;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
