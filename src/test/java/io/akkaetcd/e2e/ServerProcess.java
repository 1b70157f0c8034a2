package io.akkaetcd.e2e;

import io.akkaetcd.etcdmain.FaultyMain;
import io.akkaetcd.etcdmain.Main;
import io.akkaetcd.testlog.CapturedLogs;
import io.akkaetcd.tls.TestCerts;
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
 * A server as a separate process on loopback (alone, or a member of a {@link #cluster}): real etcd (Debian's etcd-server) or akka-etcd
 * (this build's Main on the test class path), started with the same etcd flags. Ready once
 * {@code etcdctl endpoint health} succeeds. {@link #kill()} is kill -9; {@link #stop()} is
 * SIGTERM and a wait; {@link #start()} again reuses the data directory. Its output goes to a log
 * file, shown only if the test fails ({@link CapturedLogs}). An extra flag {@code -J<option>} is a
 * JVM option of an akka-etcd process (as javac's -J), e.g. {@code -J-Dakka-etcd.some-setting=1s}.
 */
final class ServerProcess implements AutoCloseable {
  enum Kind { ETCD, AKKA_ETCD }

  /**
   * How a server speaks TLS: the schemes of its client and peer URLs, its TLS flags, the flags
   * etcdctl needs to reach it (used by every health and status check here), and a port for a
   * second, plain client URL (0: none).
   */
  record Tls(String clientScheme, String peerScheme, List<String> serverFlags, List<String> etcdctlFlags,
      int plainClientPort) {
    static final Tls NONE = new Tls("http", "http", List.of(), List.of(), 0);

    Tls(String clientScheme, String peerScheme, List<String> serverFlags, List<String> etcdctlFlags) {
      this(clientScheme, peerScheme, serverFlags, etcdctlFlags, 0);
    }

    Tls withPlainClientPort(int port) {
      return new Tls(clientScheme, peerScheme, serverFlags, etcdctlFlags, port);
    }

    /** https:// client URLs with {@code server}'s certificate and key; etcdctl trusts {@code ca}. */
    static Tls serverOnly(TestCerts ca, TestCerts.Issued server) {
      return new Tls("https", "http", List.of("--cert-file", server.cert().toString(), "--key-file",
          server.key().toString()), List.of("--cacert", ca.caFile().toString()));
    }

    /**
     * {@link #serverOnly}, and clients must show a certificate of {@code ca}
     * ({@code --client-cert-auth}); etcdctl shows {@code client}'s.
     */
    static Tls clientCerts(TestCerts ca, TestCerts.Issued server, TestCerts.Issued client) {
      return new Tls("https", "http", List.of("--cert-file", server.cert().toString(), "--key-file",
          server.key().toString(), "--trusted-ca-file", ca.caFile().toString(), "--client-cert-auth"),
          etcdctlAs(ca, client));
    }

    /** etcdctl's flags to trust {@code ca} and show {@code client}'s certificate. */
    static List<String> etcdctlAs(TestCerts ca, TestCerts.Issued client) {
      return List.of("--cacert", ca.caFile().toString(), "--cert", client.cert().toString(), "--key",
          client.key().toString());
    }
  }

  private final Kind kind;
  private final Path dataDir;
  private final Path logFile;
  private final int clientPort;
  private int peerPort;
  private String advertisedPeerUrl;
  private List<String> extraFlags;
  private final Tls tls;
  private final String name;
  /** --initial-cluster; null: this member alone. */
  private String initialCluster;
  /** Where a cluster member reads the peers it is cut off from (the test launcher's PeerFilter). */
  private final Path blockedPeersFile;
  /** The network namespace this member runs in, with its own address; null: this host's loopback. */
  private final NetnsHosts.Host host;
  /** A tmpfs mounted on the data directory ({@link #mountTmpfs}), unmounted by {@link #close()}. */
  private boolean tmpfs;
  private Process process;

  private ServerProcess(Kind kind, String name, String advertisedPeerUrl, List<String> extraFlags) {
    this(kind, name, advertisedPeerUrl, Tls.NONE, extraFlags);
  }

  private ServerProcess(Kind kind, String name, String advertisedPeerUrl, Tls tls, List<String> extraFlags) {
    this(kind, name, advertisedPeerUrl, tls, null, extraFlags);
  }

  private ServerProcess(Kind kind, String name, String advertisedPeerUrl, Tls tls, NetnsHosts.Host host,
      List<String> extraFlags) {
    try {
      this.kind = kind;
      this.host = host;
      this.tls = tls;
      this.name = name;
      this.dataDir = Files.createTempDirectory(kind.name().toLowerCase() + "-data");
      this.logFile = Files.createTempFile(kind.name().toLowerCase(), ".log");
      this.blockedPeersFile = dataDir.resolveSibling(dataDir.getFileName() + ".blocked");
      this.clientPort = Ports.free();
      this.peerPort = Ports.free();
      this.advertisedPeerUrl = advertisedPeerUrl != null ? advertisedPeerUrl : peerUrl(peerPort);
      this.extraFlags = List.copyOf(extraFlags);
      CapturedLogs.attach(kind + " " + name + " (client " + endpoint() + ")", logFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts {@code size} members of one cluster as separate processes (names m1, m2, ...) and
   * returns once every one of them is healthy (which needs a leader). If one is not, every member
   * is stopped before the failure is thrown: no caller holds them yet.
   */
  static List<ServerProcess> cluster(Kind kind, int size, List<String> extraFlags) {
    return cluster(kind, size, Tls.NONE, extraFlags);
  }

  /** {@link #cluster} where member i (from 1) also gets {@code flagsOf.apply(i)}, e.g. its own ports. */
  static List<ServerProcess> cluster(Kind kind, int size, java.util.function.IntFunction<List<String>> flagsOf) {
    List<ServerProcess> members = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      members.add(new ServerProcess(kind, "m" + i, null, Tls.NONE, flagsOf.apply(i)));
    }
    return started(members);
  }

  /** {@link #cluster} with every member speaking {@code tls}. */
  static List<ServerProcess> cluster(Kind kind, int size, Tls tls, List<String> extraFlags) {
    List<ServerProcess> members = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      members.add(new ServerProcess(kind, "m" + i, null, tls, extraFlags));
    }
    return started(members);
  }

  /**
   * A cluster of one member on each of {@code hosts} (names m1, m2, ...), each in its namespace and
   * bound to its host's address; it runs the server's own Main (faults come from the network).
   * {@code before} is run on each member before any is launched (e.g. {@link #mountTmpfs}).
   */
  static List<ServerProcess> cluster(Kind kind, List<NetnsHosts.Host> hosts, List<String> extraFlags,
      java.util.function.Consumer<ServerProcess> before) {
    List<ServerProcess> members = new ArrayList<>();
    for (int i = 1; i <= hosts.size(); i++) {
      members.add(new ServerProcess(kind, "m" + i, null, Tls.NONE, hosts.get(i - 1), extraFlags));
    }
    try {
      members.forEach(before);
    } catch (RuntimeException e) {
      members.forEach(ServerProcess::close);
      throw e;
    }
    return started(members);
  }

  private static List<ServerProcess> started(List<ServerProcess> members) {
    String initial = String.join(",", members.stream().map(m -> m.name + "=" + m.advertisedPeerUrl).toList());
    members.forEach(m -> m.initialCluster = initial);
    try {
      members.forEach(ServerProcess::launch);
      members.forEach(m -> m.awaitHealthy(Duration.ofSeconds(180)));
    } catch (RuntimeException e) {
      members.forEach(ServerProcess::close);
      throw e;
    }
    return members;
  }

  static ServerProcess start(Kind kind, List<String> extraFlags) {
    return start(kind, (String) null, extraFlags);
  }

  /** A server alone speaking {@code tls}. */
  static ServerProcess start(Kind kind, Tls tls, List<String> extraFlags) {
    return started(new ServerProcess(kind, "m1", null, tls, extraFlags));
  }

  /**
   * Starts a server that advertises {@code advertisedPeerUrl}: member and cluster ids derive from
   * it, so two servers given the same one have the same ids (each still listens on its own port).
   */
  static ServerProcess start(Kind kind, String advertisedPeerUrl, List<String> extraFlags) {
    return started(new ServerProcess(kind, "m1", advertisedPeerUrl, extraFlags));
  }

  private static ServerProcess started(ServerProcess s) {
    try {
      s.start();
    } catch (RuntimeException e) {
      s.close(); // no caller holds it yet
      throw e;
    }
    return s;
  }

  /**
   * A server that is not started yet, whose data directory does not exist yet: for a data
   * directory a snapshot restore makes ({@link #restoreFlags()}), then {@link #start()}.
   */
  static ServerProcess unstarted(Kind kind, List<String> extraFlags) {
    ServerProcess s = new ServerProcess(kind, "m1", null, extraFlags);
    deleteTree(s.dataDir);
    return s;
  }

  Path dataDir() {
    return dataDir;
  }

  /** etcdctl's snapshot restore flags that make this server's data directory for it alone. */
  List<String> restoreFlags() {
    return List.of("--data-dir", dataDir.toString(), "--name", name,
        "--initial-cluster", name + "=" + advertisedPeerUrl, "--initial-advertise-peer-urls", advertisedPeerUrl);
  }

  String endpoint() {
    return address() + ":" + clientPort;
  }

  private String address() {
    return host == null ? "127.0.0.1" : host.address();
  }

  /** The network namespace this member runs in; null on loopback. */
  NetnsHosts.Host host() {
    return host;
  }

  String clientUrl() {
    return tls.clientScheme() + "://" + endpoint();
  }

  private String peerUrl(int port) {
    return tls.peerScheme() + "://" + address() + ":" + port;
  }

  /** etcdctl against this server, with the flags its TLS needs. */
  Etcdctl.Result ctl(String... args) {
    List<String> all = new ArrayList<>(tls.etcdctlFlags());
    all.addAll(List.of(args));
    return Etcdctl.run(endpoint(), null, all);
  }

  Kind kind() {
    return kind;
  }

  private List<String> flags() {
    List<String> f = new ArrayList<>(List.of(
        "--name", name, "--data-dir", dataDir.toString(),
        "--listen-client-urls", clientUrl() + (tls.plainClientPort() == 0 ? ""
            : ",http://127.0.0.1:" + tls.plainClientPort()),
        "--advertise-client-urls", clientUrl(),
        "--listen-peer-urls", peerUrl(peerPort),
        "--initial-advertise-peer-urls", advertisedPeerUrl,
        "--initial-cluster", initialCluster != null ? initialCluster : name + "=" + advertisedPeerUrl));
    f.addAll(tls.serverFlags());
    extraFlags.stream().filter(flag -> !flag.startsWith("-J")).forEach(f::add);
    return f;
  }

  String name() {
    return name;
  }

  void start() {
    start(new String[0]);
  }

  /**
   * Starts and waits until healthy as etcdctl sees it with these flags: with auth on, etcdctl's
   * health check (a Range) needs {@code --user} (etcd 3.4 counts only "permission denied" as
   * healthy).
   */
  void start(String... healthFlags) {
    launch();
    try {
      // as long as a cluster's first start: a JVM restarted on a loaded machine starts as slowly
      awaitHealthy(Duration.ofSeconds(180), healthFlags);
    } catch (RuntimeException e) {
      process.destroyForcibly(); // a member that never became healthy must not outlive its test
      throw e;
    }
  }

  /**
   * Starts a learner: it is ready once it answers Status (a learner fails etcdctl's health check,
   * a linearizable read, by design).
   */
  void startLearner() {
    launch();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (ctl("endpoint", "status", "--command-timeout=1s").exit() != 0) {
      if (!process.isAlive() || Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(kind + " learner not up:\n" + log());
      }
    }
  }

  /** Starts the process without waiting for it to serve (a member expected never to). */
  void launchOnly() {
    launch();
  }

  private void launch() {
    List<String> cmd = new ArrayList<>();
    if (kind == Kind.ETCD) {
      cmd.add("etcd");
    } else {
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx256m");
      cmd.add("-XX:+UseSerialGC");
      // The server's own logging (to its output, the log file), not the tests' capture.
      cmd.add("-Dlogback.configurationFile=logback.xml");
      extraFlags.stream().filter(f -> f.startsWith("-J")).map(f -> f.substring(2)).forEach(cmd::add);
      if (initialCluster != null && host == null) {
        // A cluster member can be cut off or quarantined (cutOff): the test launcher, whose
        // fault injection follows blockedPeersFile; a member alone runs the server's own Main.
        cmd.add("-D" + FaultyMain.BLOCKED_PEERS_FILE + "=" + blockedPeersFile);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FaultyMain.class.getName());
      } else {
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
      }
    }
    cmd.addAll(flags());
    if (host != null) {
      // ip netns exec execs the command: the process is the server itself (signals reach it)
      cmd = NetnsHosts.in(host, cmd);
    }
    try {
      process = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd.get(0), e);
    }
  }

  private void awaitHealthy(Duration timeout, String... flags) {
    Instant deadline = Instant.now().plus(timeout);
    Etcdctl.Result last = null;
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(kind + " exited with " + process.exitValue() + ":\n" + log());
      }
      List<String> args = new ArrayList<>(List.of(flags));
      args.addAll(List.of("endpoint", "health", "--command-timeout=1s"));
      last = ctl(args.toArray(String[]::new));
      if (last.exit() == 0) {
        return;
      }
    }
    throw new IllegalStateException(kind + " not healthy within " + timeout + " (last etcdctl: "
        + (last == null ? "none" : last.all().strip()) + "):\n" + log());
  }

  /** kill -9: no shutdown hook runs. */
  void kill() {
    process.destroyForcibly();
    waitExit();
  }

  /** SIGSTOP: the process is frozen, its sockets stay open (a long GC pause or a hung host). */
  void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  void resume() {
    signal("CONT");
  }

  private void signal(String sig) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + sig + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Cuts this member off from the named members (akka-etcd's fault injection: Raft messages
   * both ways are dropped at this member's edge); an empty set heals every link.
   */
  void cutOff(java.util.Set<String> names) {
    try {
      Path tmp = Files.createTempFile(blockedPeersFile.getParent(), "blocked", ".tmp");
      Files.write(tmp, names);
      Files.move(tmp, blockedPeersFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Has this member quarantine the named member's Akka incarnation (akka-etcd's fault injection,
   * like a manual down): the quarantined member must restart its actor system by itself.
   */
  void quarantine(String name) {
    cutOff(java.util.Set.of("quarantine " + name));
  }

  /** Waits until this member's log says {@code line} (its output reaches the file a little later). */
  void awaitLogged(String line, Duration within) {
    Instant deadline = Instant.now().plus(within);
    while (!log().contains(line)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("no '" + line + "' in the log of " + name + " within " + within + ":\n" + log());
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // polling the file, bounded by the deadline
    }
  }

  long pid() {
    return process.pid();
  }

  private static final java.util.regex.Pattern MEMBER_ID = java.util.regex.Pattern.compile("\"member_id\":(\\d+)");
  private static final java.util.regex.Pattern LEADER_ID = java.util.regex.Pattern.compile("\"leader\":(\\d+)");

  /** The member among {@code candidates} that reports itself leader, within 20 s. */
  static ServerProcess leader(List<ServerProcess> candidates) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (Instant.now().isBefore(deadline)) {
      for (ServerProcess m : candidates) {
        Etcdctl.Result r = m.ctl("endpoint", "status", "-w", "json", "--command-timeout=1s");
        java.util.regex.Matcher id = MEMBER_ID.matcher(r.stdout());
        java.util.regex.Matcher leader = LEADER_ID.matcher(r.stdout());
        if (r.exit() == 0 && id.find() && leader.find() && id.group(1).equals(leader.group(1))) {
          return m;
        }
      }
    }
    throw new AssertionError("no leader among " + candidates.stream().map(ServerProcess::name).toList());
  }

  /** Waits until this member says it has no leader (it hears from none), within 20 s. */
  void awaitNoLeader() {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (Instant.now().isBefore(deadline)) {
      Etcdctl.Result r = ctl("endpoint", "status", "-w", "json", "--command-timeout=1s");
      java.util.regex.Matcher leader = LEADER_ID.matcher(r.stdout());
      if (r.exit() == 0 && (!leader.find() || leader.group(1).equals("0"))) {
        return;
      }
    }
    throw new AssertionError(name + " still has a leader");
  }

  private static final java.util.regex.Pattern HASH = java.util.regex.Pattern.compile("\"hash\":(\\d+)");
  private static final java.util.regex.Pattern REVISION = java.util.regex.Pattern.compile("\"revision\":(\\d+)");

  /** Waits until every member is at the same revision with the same HashKV, within 30 s. */
  static void awaitConverged(List<ServerProcess> members) {
    awaitConverged(members, new String[0]);
  }

  /** {@link #awaitConverged} with etcdctl flags besides the TLS ones (with auth on, HashKV needs root). */
  static void awaitConverged(List<ServerProcess> members, String... flags) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    java.util.Set<String> hashes = java.util.Set.of();
    while (Instant.now().isBefore(deadline)) {
      hashes = new java.util.HashSet<>();
      for (ServerProcess m : members) {
        List<String> args = new ArrayList<>(List.of(flags));
        args.addAll(List.of("endpoint", "hashkv", "-w", "json", "--command-timeout=2s"));
        String out = m.ctl(args.toArray(String[]::new)).stdout();
        java.util.regex.Matcher hash = HASH.matcher(out);
        java.util.regex.Matcher revision = REVISION.matcher(out);
        hashes.add(hash.find() && revision.find() ? hash.group(1) + "@" + revision.group(1) : "none");
      }
      if (hashes.size() == 1 && !hashes.contains("none")) {
        return;
      }
    }
    throw new AssertionError("members did not converge: " + hashes);
  }

  /**
   * A member to join {@code cluster} once MemberAdd has added it ({@link #peerUrl()}): started
   * with --initial-cluster-state existing and the cluster's members plus itself.
   */
  static ServerProcess joining(Kind kind, String name, List<ServerProcess> cluster, List<String> extraFlags) {
    return joining(kind, name, cluster, Tls.NONE, extraFlags);
  }

  /** {@link #joining} speaking {@code tls}. */
  static ServerProcess joining(Kind kind, String name, List<ServerProcess> cluster, Tls tls, List<String> extraFlags) {
    return joining(kind, name, cluster, tls, null, extraFlags);
  }

  /** {@link #joining} on {@code host} (null: loopback), e.g. the host of the member it replaces. */
  static ServerProcess joining(Kind kind, String name, List<ServerProcess> cluster, Tls tls, NetnsHosts.Host host,
      List<String> extraFlags) {
    List<String> flags = new ArrayList<>(extraFlags);
    flags.addAll(List.of("--initial-cluster-state", "existing"));
    ServerProcess m = new ServerProcess(kind, name, null, tls, host, flags);
    m.initialCluster = String.join(",", cluster.stream().map(c -> c.name + "=" + c.advertisedPeerUrl).toList())
        + "," + name + "=" + m.advertisedPeerUrl;
    return m;
  }

  /**
   * Runs an etcdctl membership command until the asked member stops answering "unhealthy cluster"
   * (etcd's strict reconfiguration check: it counts a peer only once it has heard from it for 5 s
   * without a break, so not just after a start) or "no leader" (not applied: an election is under
   * way), for up to 30 s; returns the last result.
   */
  static Etcdctl.Result reconfigure(String endpoints, String... args) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    Etcdctl.Result r;
    do {
      r = Etcdctl.run(endpoints, args);
    } while ((r.stderr().contains("etcdserver: unhealthy cluster") || r.stderr().contains("Error: etcdserver: no leader"))
        && Instant.now().isBefore(deadline));
    return r;
  }

  /** This member's id in hex, as etcdctl prints and takes it. */
  String memberIdHex() {
    java.util.regex.Matcher id = MEMBER_ID.matcher(ctl("endpoint", "status", "-w", "json").stdout());
    if (!id.find()) {
      throw new AssertionError(name + " did not tell its member id");
    }
    return Long.toHexString(Long.parseUnsignedLong(id.group(1)));
  }

  /**
   * Moves this (stopped) member to a new peer port for its next start, as an operator would after
   * MemberUpdate; returns the new peer URL.
   */
  String movePeerPort() {
    peerPort = Ports.free();
    advertisedPeerUrl = peerUrl(peerPort);
    return advertisedPeerUrl;
  }

  String peerUrl() {
    return advertisedPeerUrl;
  }

  /** Waits (up to 30 s) for the process to end by itself; true if it did. */
  boolean awaitExit() {
    try {
      return process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The exit status of the ended process. */
  int exitValue() {
    return process.exitValue();
  }

  /** Replaces the extra flags (server flags and -J JVM options) this member's next start gets. */
  void setExtraFlags(List<String> flags) {
    extraFlags = List.copyOf(flags);
  }

  boolean alive() {
    return process != null && process.isAlive();
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

  /**
   * Mounts a tmpfs of {@code size} (mount's size option, e.g. {@code 8m}) on the data directory,
   * before the first start: a disk that can fill up. Needs root.
   */
  void mountTmpfs(String size) {
    runChecked(List.of("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dataDir.toString()));
    tmpfs = true;
  }

  private static void runChecked(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      kill();
    }
    if (tmpfs) {
      runChecked(List.of("umount", dataDir.toString()));
      tmpfs = false;
    }
    deleteTree(dataDir);
    CapturedLogs.release(logFile); // shown if the test fails, then deleted
    blockedPeersFile.toFile().delete();
  }

  /** Deletes {@code dir} and everything under it, as far as it can. */
  static void deleteTree(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort
    }
  }
}
