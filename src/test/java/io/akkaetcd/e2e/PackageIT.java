package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.akkaetcd.testlog.CapturedLogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release package (bin/package, issue #32): the .deb holds the launcher, the jars, the unit and
 * the defaults file; its unit verifies; its tree, unpacked with {@code dpkg-deb -x} (never
 * installed here), dumps a class-data archive the JVM accepts and starts a member, configured by
 * etcd's ETCD_* variables as the unit does, that serves a put and a get to etcdctl. Runs after the
 * package phase (failsafe): bin/package --no-build packs target/akka-etcd.jar and target/lib.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class PackageIT {
  private static final Path ROOT = Path.of("").toAbsolutePath();
  private static Path deb;
  private static Path tarball;

  @BeforeAll
  static void buildPackage() throws IOException {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "no dpkg-deb");
    String out = Commands.ok(ROOT, 600, "bin/package", "--no-build").output();
    deb = artifact(out, ".deb");
    tarball = artifact(out, ".tar.gz");
  }

  /** The path bin/package printed for the artifact ending in {@code suffix}. */
  private static Path artifact(String out, String suffix) {
    Path p = out.lines().filter(l -> l.startsWith("package: ") && l.endsWith(suffix))
        .map(l -> Path.of(l.substring("package: ".length()))).findFirst()
        .orElseThrow(() -> new AssertionError("bin/package named no " + suffix + ":\n" + out));
    assertTrue(Files.isRegularFile(p), p + " missing");
    return p;
  }

  @Test
  void debDeclaresJava17AndHoldsTheTree() {
    String info = Commands.ok(ROOT, 60, "dpkg-deb", "--info", deb.toString()).output();
    assertTrue(info.contains(" Package: akka-etcd\n"), info);
    assertTrue(info.contains(" Architecture: all\n"), info);
    assertTrue(info.contains(" Depends: openjdk-17-jre-headless | java17-runtime-headless, passwd\n"), info);
    assertTrue(info.contains(" postinst") && info.contains(" conffiles"), info);
    String contents = Commands.ok(ROOT, 60, "dpkg-deb", "--contents", deb.toString()).output();
    for (String path : List.of("./usr/lib/akka-etcd/akka-etcd.jar", "./usr/lib/akka-etcd/bin/akka-etcd",
        "./usr/lib/akka-etcd/bin/akka-etcd-cds", "./usr/lib/akka-etcd/classes.lst", "./usr/lib/akka-etcd/classpath",
        "./usr/lib/akka-etcd/lib/akka-actor_2.13-2.8.6.jar", "./lib/systemd/system/akka-etcd.service",
        "./etc/default/akka-etcd", "./usr/bin/akka-etcd -> ../lib/akka-etcd/bin/akka-etcd")) {
      assertTrue(contents.lines().anyMatch(l -> l.endsWith(" " + path)), path + " not in:\n" + contents);
    }
    assertTrue(contents.lines().allMatch(l -> l.contains(" root/root ")), "files not owned by root:\n" + contents);
    String tar = Commands.ok(ROOT, 60, "tar", "-tzf", tarball.toString()).output();
    String top = tarball.getFileName().toString().replace(".tar.gz", "");
    for (String path : List.of("/bin/akka-etcd", "/bin/akka-etcd-cds", "/akka-etcd.jar", "/akka-etcd.service", "/classes.lst")) {
      assertTrue(tar.lines().anyMatch(l -> l.equals(top + path)), top + path + " not in the tarball");
    }
  }

  @Test
  void postinstCreatesAnUnprivilegedUserAndDataDir(@TempDir Path control) {
    Commands.ok(ROOT, 60, "dpkg-deb", "--control", deb.toString(), control.toString());
    String postinst = read(control.resolve("postinst"));
    assertTrue(postinst.contains("useradd --system --user-group --home-dir /var/lib/akka-etcd"), postinst);
    assertTrue(postinst.contains("chown akka-etcd:akka-etcd /var/lib/akka-etcd"), postinst);
    assertEquals("/etc/default/akka-etcd\n", read(control.resolve("conffiles")));
  }

  @Test
  void unitReadsEtcdVariablesAndVerifies(@TempDir Path root) {
    Commands.ok(ROOT, 120, "dpkg-deb", "-x", deb.toString(), root.toString());
    String unit = read(root.resolve("lib/systemd/system/akka-etcd.service"));
    for (String line : List.of("EnvironmentFile=-/etc/default/akka-etcd", "User=akka-etcd", "Type=simple",
        "WorkingDirectory=/var/lib/akka-etcd", "Restart=on-failure", "LimitNOFILE=65536", "ExecStart=/usr/bin/akka-etcd")) {
      assertTrue(unit.lines().anyMatch(line::equals), line + " not in the unit:\n" + unit);
    }
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/systemd-analyze")), "no systemd-analyze");
    // The unit as installed, but for ExecStart, which must exist: the unpacked launcher stands in.
    Path copy = root.resolve("verify/akka-etcd.service");
    write(copy, unit.replace("ExecStart=/usr/bin/akka-etcd", "ExecStart=" + root.resolve("usr/bin/akka-etcd")));
    Commands.Result r = Commands.run(ROOT, Map.of(), 60, List.of("systemd-analyze", "verify", copy.toString()));
    assertEquals(0, r.exit(), r.output());
    assertEquals("", r.output().strip(), "systemd-analyze verify warned");
  }

  @Test
  void unpackedLauncherStartsAMemberThatServesEtcdctl(@TempDir Path root) throws IOException {
    Commands.ok(ROOT, 120, "dpkg-deb", "-x", deb.toString(), root.toString());
    Path home = root.resolve("usr/lib/akka-etcd");
    Commands.ok(ROOT, 300, home.resolve("bin/akka-etcd-cds").toString());
    assertTrue(Files.size(home.resolve("akka-etcd.jsa")) > 1_000_000, "no class-data archive");
    // -Xshare:on fails the JVM when the archive does not match this tree's class path.
    String cp = Files.readAllLines(home.resolve("classpath")).stream().map(j -> home.resolve(j).toString())
        .collect(Collectors.joining(":"));
    String version = Commands.ok(ROOT, 60, javaBin(), "-Xshare:on", "-XX:SharedArchiveFile=" + home.resolve("akka-etcd.jsa"),
        "-cp", cp, "io.akkaetcd.etcdmain.Main", "--version").output();
    assertTrue(version.startsWith("akka-etcd Version: "), version);

    int client = Ports.free();
    int peer = Ports.free();
    String clientUrl = "http://127.0.0.1:" + client;
    String peerUrl = "http://127.0.0.1:" + peer;
    Path log = root.resolve("member.log");
    ProcessBuilder pb = new ProcessBuilder(root.resolve("usr/bin/akka-etcd").toString()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    // As /etc/default/akka-etcd would set them for the unit: no flag on the command line.
    pb.environment().putAll(Map.of("ETCD_NAME", "pkg", "ETCD_DATA_DIR", root.resolve("data").toString(),
        "ETCD_LISTEN_CLIENT_URLS", clientUrl, "ETCD_ADVERTISE_CLIENT_URLS", clientUrl,
        "ETCD_LISTEN_PEER_URLS", peerUrl, "ETCD_INITIAL_ADVERTISE_PEER_URLS", peerUrl,
        "ETCD_INITIAL_CLUSTER", "pkg=" + peerUrl, "JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC",
        "JAVA_HOME", System.getProperty("java.home")));
    CapturedLogs.attach("packaged member (client " + clientUrl + ")", log);
    Process member = pb.start();
    try {
      String endpoint = "127.0.0.1:" + client;
      Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
      while (Etcdctl.run(endpoint, "endpoint", "health", "--command-timeout=1s").exit() != 0) {
        assertTrue(member.isAlive(), "the packaged member exited:\n" + read(log));
        assertTrue(Instant.now().isBefore(deadline), "the packaged member is not healthy within 120 s:\n" + read(log));
      }
      assertEquals("OK\n", Etcdctl.run(endpoint, "put", "deployed", "from-the-deb").stdout());
      assertEquals("deployed\nfrom-the-deb\n", Etcdctl.run(endpoint, "get", "deployed").stdout());
      assertTrue(Etcdctl.run(endpoint, "member", "list").stdout().contains(", pkg, " + peerUrl + ", " + clientUrl),
          "ETCD_NAME and the URLs not taken from the environment");
    } finally {
      member.destroy(); // SIGTERM: the launcher exec'd the JVM, which stops the member (StopSignals)
      if (!waitFor(member)) {
        member.destroyForcibly();
      }
    }
  }

  /** deploy/Dockerfile's steps, mirrored by deploy/docker-dry-run in a temporary root. */
  @Test
  void dockerfileStepsRunAgainstThePackage() {
    String out = Commands.ok(ROOT, 600, "deploy/docker-dry-run", deb.toString()).output();
    for (String step : List.of("ran: COPY target/akka-etcd_*_all.deb /tmp/akka-etcd.deb",
        "ran: apt-get install -s --no-install-recommends", "ran: dpkg-deb -x", "ran: postinst: akka-etcd-cds",
        "ran: ENV ...; ENTRYPOINT [\"/usr/bin/akka-etcd\"] --version (akka-etcd Version: ")) {
      assertTrue(out.lines().anyMatch(l -> l.startsWith(step)), step + " not in:\n" + out);
    }
  }

  private static boolean waitFor(Process p) {
    try {
      return p.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void write(Path p, String text) {
    try {
      Files.createDirectories(p.getParent());
      Files.writeString(p, text);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
