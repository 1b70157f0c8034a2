package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.akkaetcd.testlog.CapturedLogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL high availability on akka-etcd, as issue #28 asks: two Patroni 3 nodes (Debian's
 * {@code patroni} and {@code postgresql}, installed by bin/test) talk to akka-etcd through its JSON
 * gateway only. One bootstraps and leads, the other follows by streaming replication (a row
 * written on the leader is read on the replica); {@code patronictl switchover} moves the lead;
 * then the leader's Patroni and postgres are killed with kill -9 and the other takes over within
 * the TTL; the old leader, restarted, rejoins as a replica. On one member and on three.
 *
 * <p>PostgreSQL refuses to run as root: as root, Patroni runs as the {@code postgres} user
 * ({@code runuser}), in a directory it owns.
 */
class PatroniFailoverTest {
  private static final String POSTGRES_BIN = postgresBin();
  private static final int TTL_SECONDS = 10;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Pattern ROLE = Pattern.compile("\"role\": ?\"(\\w+)\"");
  private static final Pattern STATE = Pattern.compile("\"state\": ?\"(\\w+)\"");

  @Test
  void failsOverOnOneMember() throws Exception {
    requirePatroni();
    try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      play(List.of(etcd));
    }
  }

  @Test
  void failsOverOnThreeMembers() throws Exception {
    requirePatroni();
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    try {
      play(members);
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  private static void play(List<ServerProcess> etcd) throws Exception {
    Path dir = Files.createTempDirectory("patroni", PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwxr-xr-x")));
    String hosts = etcd.stream().map(ServerProcess::endpoint).collect(Collectors.joining(","));
    String scope = "pg" + ProcessHandle.current().pid() + "x" + etcd.size();
    List<Node> nodes = List.of(new Node(dir, scope, "node1", hosts), new Node(dir, scope, "node2", hosts));
    try {
      owned(dir);
      nodes.get(0).start();
      Node first = awaitLeader(nodes, Duration.ofSeconds(180)); // initdb and bootstrap
      assertEquals("node1", first.name, "the only node bootstraps and leads");
      nodes.get(1).start();
      nodes.get(1).awaitReplica(Duration.ofSeconds(90));
      first.sql("CREATE TABLE ha(x int); INSERT INTO ha VALUES (42)");
      awaitValue(nodes.get(1), "42");

      // a switchover through patronictl, which reads and writes the cluster's keys on akka-etcd
      Node candidate = nodes.get(1);
      String out = run(Duration.ofSeconds(90), asPostgres(List.of("patronictl", "-c", first.config.toString(),
          "switchover", scope, "--leader", first.name, "--candidate", candidate.name, "--force")));
      Node afterSwitch = awaitLeader(List.of(candidate), Duration.ofSeconds(60));
      assertEquals(false, first.leads(), out);
      first.awaitReplica(Duration.ofSeconds(90));

      // kill -9 of the leader's Patroni and postgres: the other takes over within the TTL
      Node leader = afterSwitch;
      Node other = leader == nodes.get(0) ? nodes.get(1) : nodes.get(0);
      leader.kill();
      Instant killed = Instant.now();
      Node next = awaitLeader(List.of(other), Duration.ofSeconds(TTL_SECONDS + 20));
      Duration took = Duration.between(killed, Instant.now());
      assertEquals(other.name, next.name);
      assertEquals(true, took.toSeconds() <= TTL_SECONDS + 10, "failover took " + took);
      next.sql("INSERT INTO ha VALUES (43)");

      // the old leader rejoins as a replica and gets the new leader's writes
      leader.start();
      leader.awaitReplica(Duration.ofSeconds(120));
      awaitValue(leader, "42\n43");
      assertNotEquals(leader.name, awaitLeader(nodes, Duration.ofSeconds(10)).name);
    } finally {
      nodes.forEach(Node::kill);
      ServerProcess.deleteTree(dir);
    }
  }

  /** One Patroni node with its own PostgreSQL data directory, REST API and ports. */
  private static final class Node {
    final String name;
    final Path config;
    final Path log;
    final Path dataDir;
    final int pgPort = Ports.free();
    final int apiPort = Ports.free();
    Process process;

    Node(Path dir, String scope, String name, String etcdHosts) throws IOException {
      this.name = name;
      this.config = dir.resolve(name + ".yml");
      // outside dir, which is deleted at the end: the log is shown if the test fails
      this.log = Files.createTempFile("patroni-" + name, ".log");
      this.dataDir = dir.resolve(name + "-data");
      Files.writeString(config, String.join("\n",
          "scope: " + scope,
          "name: " + name,
          "log: {level: INFO}",
          "restapi: {listen: 127.0.0.1:" + apiPort + ", connect_address: 127.0.0.1:" + apiPort + "}",
          "etcd3: {hosts: '" + etcdHosts + "'}",
          "bootstrap:",
          "  dcs:",
          "    ttl: " + TTL_SECONDS,
          "    loop_wait: 1",
          "    retry_timeout: 4",
          "    maximum_lag_on_failover: 1048576",
          "    postgresql: {use_pg_rewind: true}",
          "  initdb: [{encoding: UTF8}]",
          "postgresql:",
          "  listen: 127.0.0.1:" + pgPort,
          "  connect_address: 127.0.0.1:" + pgPort,
          "  data_dir: " + dataDir,
          "  bin_dir: " + POSTGRES_BIN,
          "  pgpass: " + dir.resolve(name + ".pgpass"),
          "  authentication:",
          "    replication: {username: replicator, password: rep}",
          "    superuser: {username: postgres, password: su}",
          // dynamic shared memory in the data directory: a killed postmaster's segments go with it, not left in /dev/shm
          "  parameters: {unix_socket_directories: '" + dir + "', dynamic_shared_memory_type: mmap}",
          "  pg_hba:",
          "    - local all all trust",
          "    - host all all 127.0.0.1/32 trust",
          "    - host replication replicator 127.0.0.1/32 trust",
          ""));
      CapturedLogs.attach("patroni " + name + " (api " + apiPort + ", postgres " + pgPort + ")", log);
    }

    void start() throws IOException {
      owned(config.getParent());
      owned(log);
      process = new ProcessBuilder(asPostgres(List.of("patroni", config.toString())))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** kill -9 of Patroni (and whatever it started) and of its postmaster. */
    void kill() {
      if (process != null) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process = null;
      }
      try {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (Files.exists(pidFile)) {
          long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
          ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
      } catch (IOException | RuntimeException e) {
        // no postmaster running
      }
    }

    /** What Patroni's REST API says of this node, or "" if it does not answer. */
    String status() {
      try {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/patroni"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
      } catch (IOException e) {
        return "";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "";
      }
    }

    boolean leads() {
      String s = status();
      return matches(ROLE, s, "master") || matches(ROLE, s, "primary");
    }

    void awaitReplica(Duration within) {
      await(within, () -> {
        String s = status();
        return matches(ROLE, s, "replica") && matches(STATE, s, "running")
            && s.contains("\"received_location\"") ? Optional.of(s) : Optional.empty();
      }, name + " running as a replica");
    }

    String sql(String statement) {
      return run(Duration.ofSeconds(30), asPostgres(List.of(POSTGRES_BIN + "/psql", "-h", "127.0.0.1",
          "-p", Integer.toString(pgPort), "-U", "postgres", "-d", "postgres", "-tA", "-v", "ON_ERROR_STOP=1",
          "-c", statement)));
    }
  }

  private static Node awaitLeader(List<Node> nodes, Duration within) {
    return await(within, () -> nodes.stream().filter(Node::leads).findFirst(), "a leader among " + nodes.size());
  }

  private static void awaitValue(Node node, String rows) {
    await(Duration.ofSeconds(30), () -> {
      try {
        return node.sql("SELECT x FROM ha ORDER BY x").trim().equals(rows) ? Optional.of(true) : Optional.empty();
      } catch (AssertionError notYet) {
        return Optional.empty();
      }
    }, node.name + " reads " + rows.replace('\n', ','));
  }

  private static <T> T await(Duration within, Supplier<Optional<T>> probe, String what) {
    Instant deadline = Instant.now().plus(within);
    while (true) {
      Optional<T> v = probe.get();
      if (v.isPresent()) {
        return v.get();
      }
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + within + ": " + what);
      }
      try {
        Thread.sleep(200); // polling interval
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static boolean matches(Pattern p, String s, String value) {
    Matcher m = p.matcher(s);
    return m.find() && m.group(1).equals(value);
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** The command as the postgres user when the test runs as root (PostgreSQL refuses root). */
  private static List<String> asPostgres(List<String> command) {
    if (!root()) {
      return command;
    }
    List<String> c = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
    c.addAll(command);
    return c;
  }

  /** As root, hands the test's directory to the postgres user. */
  private static void owned(Path dir) {
    if (root()) {
      run(Duration.ofSeconds(10), List.of("chown", "-R", "postgres:", dir.toString()));
    }
  }

  private static String run(Duration timeout, List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("timed out: " + command);
      }
      String text = new String(out, java.nio.charset.StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new AssertionError(command + " exited " + p.exitValue() + ": " + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Debian's newest PostgreSQL server binaries, or null. */
  private static String postgresBin() {
    try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("postgres")))
          .max(java.util.Comparator.comparing(b -> Integer.parseInt(b.getParent().getFileName().toString())))
          .map(Path::toString).orElse(null);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** bin/test installs Debian's patroni and postgresql; elsewhere the test is skipped, saying why. */
  private static void requirePatroni() {
    boolean patroni = Files.isExecutable(Path.of("/usr/bin/patroni"));
    assumeTrue(patroni && POSTGRES_BIN != null, "needs Debian's patroni and postgresql packages (bin/test installs them)");
  }
}
