package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator sees when something is wrong, as a process started with etcd's flags shows it:
 * a listen URL that cannot be served fails at once with etcd's own line (compared with real etcd
 * 3.4 given the same flags), exit status 1, and no data directory; a damaged file in the data
 * directory stops the start with one line that names it and says what to do; a journal that lost
 * its tail is reported as such; a new --name on an old data directory renames the member, as in
 * etcd; a fresh member is at Raft term 2 and a restart makes it 3, as in etcd; and SIGTERM always
 * ends with the store closed, the process then ended by the signal, as etcd's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorErrorsTest {
  private static final Duration EXIT_WITHIN = Duration.ofSeconds(60);
  /** A start on a loaded machine (2 cores shared by whole suites) can take a minute and more. */
  private static final Duration SERVING_WITHIN = Duration.ofSeconds(150);

  @TempDir static Path tmp;
  /** A data directory of a member that ran, took writes and stopped: copied, then damaged. */
  private Path used;

  /** One process of Main or of real etcd, its output in a file. */
  private record Run(Process process, Path outputFile) {
    String output() {
      try {
        return Files.readString(outputFile);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The output's lines, once the process has exited on its own (fails if it does not). */
    List<String> exitLines(int expectedExit) throws InterruptedException {
      assertTrue(process.waitFor(EXIT_WITHIN.toSeconds(), TimeUnit.SECONDS), "did not exit:\n" + output());
      assertEquals(expectedExit, process.exitValue(), output());
      return output().lines().toList();
    }

    /** SIGTERM and wait: the member must say it closed its store. */
    void stop() throws InterruptedException {
      process.destroy();
      assertTrue(process.waitFor(EXIT_WITHIN.toSeconds(), TimeUnit.SECONDS), "did not stop:\n" + output());
      assertTrue(output().contains("stopped; store closed"), "no 'store closed' after SIGTERM:\n" + output());
    }
  }

  private Run start(boolean etcd, List<String> flags) throws IOException {
    Path out = Files.createTempFile(tmp, etcd ? "etcd" : "akka-etcd", ".log");
    return new Run(new ProcessBuilder(command(etcd, flags)).redirectErrorStream(true).redirectOutput(out.toFile()).start(), out);
  }

  private static List<String> command(boolean etcd, List<String> flags) {
    List<String> cmd = new ArrayList<>();
    if (etcd) {
      cmd.add("etcd");
    } else {
      cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
          // the server's own logging, not the tests' in-memory capture on the test class path
          "-Dlogback.configurationFile=logback.xml", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), "io.akkaetcd.etcdmain.Main"));
    }
    cmd.addAll(flags);
    return cmd;
  }

  /** etcd's flags for one member on the given ports and data directory. */
  private static List<String> flags(Path dataDir, String name, String clientUrl, String peerUrl) {
    return List.of("--name", name, "--data-dir", dataDir.toString(),
        "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", name + "=" + peerUrl);
  }

  private static String http(int port) {
    return "http://127.0.0.1:" + port;
  }

  private static void awaitServing(Run run, String endpoint) {
    Instant deadline = Instant.now().plus(SERVING_WITHIN);
    while (Etcdctl.run(endpoint, "endpoint", "health", "--command-timeout=1s").exit() != 0) {
      if (!run.process().isAlive() || Instant.now().isAfter(deadline)) {
        throw new AssertionError("not serving:\n" + run.output());
      }
    }
  }

  @BeforeAll
  void runAMember() throws Exception {
    used = tmp.resolve("used");
    int client = Ports.free();
    Run run = start(false, flags(used, "u1", http(client), http(Ports.free())));
    awaitServing(run, "127.0.0.1:" + client);
    for (int i = 0; i < 30; i++) {
      assertEquals(0, Etcdctl.run("127.0.0.1:" + client, "put", "k" + i, "v" + i).exit());
    }
    run.stop();
  }

  // ---- listen URLs: etcd's line, exit 1, no data directory ----

  /** Runs Main and real etcd with the same flags; both must fail with the same message, leaving no data dir. */
  private void failsAsEtcd(String clientUrl, String peerUrl, String expected) throws Exception {
    String ours = null;
    for (boolean etcd : new boolean[] {false, true}) {
      Path dataDir = tmp.resolve((etcd ? "etcd" : "akka-etcd") + "-" + Ports.free());
      List<String> lines = start(etcd, flags(dataDir, "default", clientUrl, peerUrl)).exitLines(1);
      String last = lines.get(lines.size() - 1);
      // etcd: "<time> C | etcdmain: <message>"; akka-etcd: "<time> ERROR etcdmain <message>".
      String message = last.substring(last.indexOf("etcdmain") + (etcd ? "etcdmain: " : "etcdmain ").length());
      assertFalse(Files.exists(dataDir), "a data directory was left by " + (etcd ? "etcd" : "akka-etcd"));
      if (etcd) {
        assertEquals(message, ours, "the same message as etcd 3.4");
      } else {
        assertEquals(1, lines.size(), "one line: " + lines);
        assertTrue(last.contains(" ERROR etcdmain "), last);
        assertEquals(expected, message);
        ours = message;
      }
    }
  }

  @Test
  void clientPortInUse() throws Exception {
    try (ServerSocket taken = new ServerSocket(Ports.free(), 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      failsAsEtcd(http(port), http(Ports.free()), "listen tcp 127.0.0.1:" + port + ": bind: address already in use");
    }
  }

  @Test
  void peerPortInUse() throws Exception {
    try (ServerSocket taken = new ServerSocket(Ports.free(), 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      failsAsEtcd(http(Ports.free()), http(port), "listen tcp 127.0.0.1:" + port + ": bind: address already in use");
    }
  }

  @Test
  void httpsClientUrlWithoutCertificates() throws Exception {
    String url = "https://127.0.0.1:" + Ports.free();
    failsAsEtcd(url, http(Ports.free()),
        "TLS key/cert (--cert-file, --key-file) must be provided for client url " + url + " with HTTPS scheme");
  }

  @Test
  void httpsPeerUrlWithoutCertificates() throws Exception {
    int port = Ports.free();
    failsAsEtcd(http(Ports.free()), "https://127.0.0.1:" + port,
        "cannot listen on TLS for 127.0.0.1:" + port + ": KeyFile and CertFile are not presented");
  }

  // ---- peer URLs on a first start: etcd's line, exit 1 (both leave the data directory made) ----

  /** The last line's message of Main and of real etcd given {@code flags}: both must exit 1. */
  private String sameFatalMessageAsEtcd(java.util.function.Function<Path, List<String>> flagsFor) throws Exception {
    List<String> messages = new ArrayList<>();
    for (boolean etcd : new boolean[] {false, true}) {
      Path dataDir = tmp.resolve((etcd ? "etcd" : "akka-etcd") + "-" + Ports.free());
      List<String> lines = start(etcd, flagsFor.apply(dataDir)).exitLines(1);
      String last = lines.get(lines.size() - 1);
      assertFalse(lines.stream().anyMatch(l -> l.startsWith("\tat ")), "no stack trace: " + lines);
      messages.add(last.substring(last.indexOf("etcdmain") + (etcd ? "etcdmain: " : "etcdmain ").length()));
    }
    assertEquals(messages.get(1), messages.get(0), "the same message as etcd 3.4");
    return messages.get(0);
  }

  @Test
  void advertisedPeerUrlNotTheOneInInitialCluster() throws Exception {
    String client = http(Ports.free());
    String peer = http(Ports.free());
    String other = http(Ports.free());
    String message = sameFatalMessageAsEtcd(dir -> List.of("--name", "m1", "--data-dir", dir.toString(),
        "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer, "--initial-cluster", "m1=" + other));
    assertEquals("--initial-cluster has m1=" + other + " but missing from --initial-advertise-peer-urls=" + peer
        + " (resolved urls: \"" + peer + "\" != \"" + other + "\")", message);
  }

  @Test
  void joiningAClusterOfItselfAlone() throws Exception {
    String client = http(Ports.free());
    String peer = http(Ports.free());
    String message = sameFatalMessageAsEtcd(dir -> List.of("--name", "m1", "--data-dir", dir.toString(),
        "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
        "--initial-advertise-peer-urls", peer, "--initial-cluster", "m1=" + peer, "--initial-cluster-state", "existing"));
    assertEquals("cannot fetch cluster info from peer urls: could not retrieve cluster information from the given URLs",
        message);
  }

  // ---- damaged data directories: one line naming the file, what is wrong, what to do ----

  private Path copyOfUsed() throws IOException {
    Path copy = tmp.resolve("damaged-" + Ports.free());
    try (Stream<Path> files = Files.walk(used)) {
      for (Path p : files.toList()) {
        Path to = copy.resolve(used.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to);
        }
      }
    }
    return copy;
  }

  /** Starts Main on {@code dataDir}: it must exit 1 with one line naming {@code file} and {@code what}. */
  private void refusesDamaged(Path dataDir, Path file, String what) throws Exception {
    List<String> lines = start(false, flags(dataDir, "u1", http(Ports.free()), http(Ports.free()))).exitLines(1);
    String last = lines.get(lines.size() - 1);
    assertTrue(last.contains(" ERROR etcdmain " + file + " is damaged: " + what), lines.toString());
    assertTrue(last.contains("remove this member (etcdctl member remove), delete its data directory and add it again"),
        last);
    assertFalse(lines.stream().anyMatch(l -> l.startsWith("\tat ")), "no stack trace: " + lines);
  }

  @Test
  void emptiedMembersFile() throws Exception {
    Path dir = copyOfUsed();
    Path members = dir.resolve("member/members");
    Files.write(members, new byte[0]);
    refusesDamaged(dir, members, "it is empty, but must list at least one member");
  }

  @Test
  void truncatedMembersFile() throws Exception {
    Path dir = copyOfUsed();
    Path members = dir.resolve("member/members");
    byte[] whole = Files.readAllBytes(members);
    Files.write(members, java.util.Arrays.copyOf(whole, whole.length / 2));
    refusesDamaged(dir, members, "its last line is cut short");
  }

  @Test
  void garbageInMemberFiles() throws Exception {
    Path dir = copyOfUsed();
    Path members = dir.resolve("member/members");
    Files.writeString(members, "not a member\n");
    refusesDamaged(dir, members, "line 1 (\"not a member\") is not <hex member id> <name> <url>,... [learner]");
    Path identity = copyOfUsed().resolve("member/identity");
    Files.writeString(identity, "\u0000\u0001garbage\n");
    refusesDamaged(identity.getParent().getParent(), identity, "it must hold two lines");
  }

  @Test
  void damagedStoreAndJournal() throws Exception {
    Path dir = copyOfUsed();
    Path store = dir.resolve("member/mvcc");
    overwriteEach(store, "MANIFEST-");
    refusesDamaged(dir, store, "the MVCC store (LevelDB) cannot be opened: Corruption: ");
    dir = copyOfUsed();
    Path wal = dir.resolve("member/wal");
    Files.writeString(wal.resolve("CURRENT"), "MANIFEST-999999\n");
    refusesDamaged(dir, wal, "the raft journal (LevelDB) cannot be opened: ");
  }

  private static void overwriteEach(Path dir, String prefix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList()) {
        byte[] noise = new byte[(int) Files.size(f)];
        new java.util.Random(7).nextBytes(noise);
        Files.write(f, noise);
      }
    }
  }

  /**
   * The journal's last entries cut off (the store applied them): not "a snapshot was installed",
   * but a damaged journal, named, with what to do; the member goes on from its store's state.
   */
  @Test
  void journalThatLostItsTail() throws Exception {
    Path dir = copyOfUsed();
    Path wal = dir.resolve("member/wal");
    Path log;
    try (Stream<Path> files = Files.list(wal)) {
      log = files.filter(f -> f.toString().endsWith(".log")).max(Comparator.comparingLong(f -> f.toFile().length()))
          .orElseThrow();
    }
    byte[] whole = Files.readAllBytes(log);
    Files.write(log, java.util.Arrays.copyOf(whole, whole.length / 2));
    int client = Ports.free();
    Run run = start(false, flags(dir, "u1", http(client), http(Ports.free())));
    awaitServing(run, "127.0.0.1:" + client);
    assertEquals("v29\n", Etcdctl.run("127.0.0.1:" + client, "get", "k29", "--print-value-only").stdout());
    run.stop();
    String out = run.output();
    assertTrue(out.contains("the raft journal " + wal + " is damaged: it ends at index "), out);
    assertFalse(out.contains("a snapshot was installed"), out);
  }

  // ---- --name on an old data directory; the Raft term; SIGTERM ----

  private static String raftTerm(String endpoint) {
    String fields = Etcdctl.run(endpoint, "endpoint", "status", "-w", "fields").stdout();
    return fields.lines().filter(l -> l.startsWith("\"RaftTerm\"")).findFirst().orElse(fields);
  }

  /** As etcd 3.4: the member starts under the new name and publishes it; member list shows it. */
  @Test
  void newNameOnAnOldDataDirRenamesTheMember() throws Exception {
    Path dir = tmp.resolve("renamed");
    int client = Ports.free();
    String peer = http(Ports.free());
    String endpoint = "127.0.0.1:" + client;
    Run first = start(false, flags(dir, "a", http(client), peer));
    awaitServing(first, endpoint);
    assertEquals("\"RaftTerm\" : 2", raftTerm(endpoint), "etcd's term after bootstrapping a new cluster");
    String id = Etcdctl.run(endpoint, "member", "list").stdout().split(",")[0];
    first.stop();

    Run second = start(false, flags(dir, "b", http(client), peer));
    awaitServing(second, endpoint);
    assertEquals("\"RaftTerm\" : 3", raftTerm(endpoint), "one election more, as etcd");
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    String list = Etcdctl.run(endpoint, "member", "list").stdout();
    while (!list.contains(", b, ") && Instant.now().isBefore(deadline)) {
      list = Etcdctl.run(endpoint, "member", "list").stdout();
    }
    assertEquals(id + ", started, b, " + peer + ", " + http(client) + ", false\n", list);
    second.stop();
  }

  /**
   * Python's subprocess as the supervisor, since it tells a death by a signal (a negative return
   * code) from an exit status, which Java's Process does not: it starts the command, waits for a
   * line on its stdin, sends the signal and prints the return code.
   */
  private static final String SUPERVISOR = String.join("\n",
      "import signal, subprocess, sys",
      "p = subprocess.Popen(sys.argv[3:], stdout=open(sys.argv[2], 'w'), stderr=subprocess.STDOUT)",
      "sys.stdin.readline()",
      "p.send_signal(getattr(signal, sys.argv[1]))",
      "print(p.wait())");

  /**
   * As etcd (osutil.HandleInterrupts): SIGINT and SIGTERM stop the member, its store closed, and the
   * process then ends by that signal, as etcd's does; an exit status 130/143 instead is what systemd
   * counts as a failed stop. Compared with real etcd under the same supervisor.
   */
  @Test
  void aStopSignalEndsTheProcessByThatSignalAsEtcd() throws Exception {
    for (String signal : List.of("SIGINT", "SIGTERM")) {
      for (boolean etcd : List.of(true, false)) {
        String kind = (etcd ? "etcd" : "akka-etcd") + " " + signal;
        Path dir = tmp.resolve("signal-" + (etcd ? "etcd-" : "akka-etcd-") + signal);
        int client = Ports.free();
        Path log = Files.createTempFile(tmp, "supervised", ".log");
        Path code = Files.createTempFile(tmp, "returncode", ".txt");
        List<String> cmd = new ArrayList<>(List.of("python3", "-c", SUPERVISOR, signal, log.toString()));
        cmd.addAll(command(etcd, flags(dir, "s", http(client), http(Ports.free()))));
        Process supervisor = new ProcessBuilder(cmd).redirectOutput(code.toFile()).redirectErrorStream(true).start();
        awaitServing(new Run(supervisor, log), "127.0.0.1:" + client);
        supervisor.getOutputStream().write('\n');
        supervisor.getOutputStream().close();
        assertTrue(supervisor.waitFor(EXIT_WITHIN.toSeconds(), TimeUnit.SECONDS), kind + " did not stop");
        int number = signal.equals("SIGINT") ? 2 : 15;
        assertEquals("-" + number, Files.readString(code).strip(), kind + ":\n" + Files.readString(log));
        String goName = signal.equals("SIGINT") ? "interrupt" : "terminated";
        assertTrue(Files.readString(log).contains("received " + goName + " signal, shutting down"), kind);
        if (!etcd) {
          assertTrue(Files.readString(log).contains("stopped; store closed"), kind + ":\n" + Files.readString(log));
        }
      }
    }
  }
}
