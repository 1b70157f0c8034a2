package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One server process the comparison measures: real etcd or akka-etcd, started with the same etcd
 * flags on free loopback ports and a fresh data dir. CPU and memory are read from /proc.
 */
final class ServerUnderTest implements AutoCloseable {
  enum Kind { ETCD, AKKA_ETCD }

  final Kind kind;
  final String endpoint;
  /** How the tool's clients reach it: plaintext, or TLS trusting the run's CA. */
  final ClientAccess access;
  private final List<String> command;
  private final Path dataDir;
  private final String peerUrl;
  private final Path log;
  private Process process;

  private long launchedAt;
  private String label;

  /** A member on its own. */
  ServerUnderTest(Kind kind, String executable, Path workDir, List<String> extraFlags) {
    this(kind, executable, workDir, extraFlags, null);
  }

  /** A member on its own, serving clients and peers over TLS with {@code tls}'s certificate unless null. */
  ServerUnderTest(Kind kind, String executable, Path workDir, List<String> extraFlags, TlsFiles tls) {
    this(kind, executable, workDir, "default", scheme(tls) + "://127.0.0.1:" + freePort(), null, extraFlags, tls);
  }

  private ServerUnderTest(Kind kind, String executable, Path workDir, String name, String peerUrl,
      String initialCluster, List<String> extraFlags, TlsFiles tls) {
    this.kind = kind;
    this.endpoint = "127.0.0.1:" + freePort();
    this.access = tls == null ? ClientAccess.PLAIN : tls.access();
    String base = kind.name().toLowerCase() + (name.equals("default") ? "" : "-" + name);
    this.dataDir = workDir.resolve(base + ".data");
    this.peerUrl = peerUrl;
    this.log = workDir.resolve(base + ".log");
    command = new ArrayList<>(List.of(executable));
    command.addAll(urlFlags(name, dataDir, access.scheme() + "://" + endpoint, peerUrl,
        initialCluster != null ? initialCluster : name + "=" + peerUrl));
    if (tls != null) command.addAll(tls.serverFlags());
    command.addAll(extraFlags);
  }

  private static String scheme(TlsFiles tls) {
    return tls == null ? "http" : "https";
  }

  /** etcd's flags for one member serving client requests on {@code endpoint} (host:port). */
  static List<String> memberFlags(String name, Path dataDir, String endpoint, String peerUrl, String initialCluster) {
    return urlFlags(name, dataDir, "http://" + endpoint, peerUrl, initialCluster);
  }

  private static List<String> urlFlags(String name, Path dataDir, String clientUrl, String peerUrl, String initialCluster) {
    return List.of("--name", name, "--data-dir", dataDir.toString(),
        "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", initialCluster);
  }

  /** The members of one cluster (names m1, m2, ...), not started; over TLS with {@code tls} unless null. */
  static List<ServerUnderTest> cluster(Kind kind, String executable, Path workDir, int size, List<String> extraFlags,
      TlsFiles tls) {
    List<String> peerUrls = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      peerUrls.add(scheme(tls) + "://127.0.0.1:" + freePort());
    }
    List<String> named = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      named.add("m" + (i + 1) + "=" + peerUrls.get(i));
    }
    String initial = String.join(",", named);
    List<ServerUnderTest> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      members.add(new ServerUnderTest(kind, executable, workDir, "m" + (i + 1), peerUrls.get(i), initial, extraFlags, tls));
    }
    return members;
  }

  /** The data dir and etcdctl's restore flags that make a snapshot this member's data. */
  List<String> restoreFlags() {
    return List.of("--data-dir", dataDir.toString(), "--name", "default", "--initial-cluster", "default=" + peerUrl,
        "--initial-advertise-peer-urls", peerUrl);
  }

  String name() {
    return label != null ? label : kind == Kind.ETCD ? "etcd" : "akka-etcd";
  }

  /** Names this server in reports instead of its kind (two akka-etcds of an A/B). */
  ServerUnderTest labelled(String label) {
    this.label = label;
    return this;
  }

  /** Starts the process (keeping the data dir) and returns the milliseconds until it served a linearizable read. */
  long start() {
    launch();
    return awaitServing();
  }

  /** Starts the process and returns at once (cluster members start together, then await serving). */
  void launch() {
    launchedAt = System.nanoTime();
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command.get(0), e);
    }
  }

  /** Waits until the server answers a linearizable read; the milliseconds since {@link #launch()}. */
  long awaitServing() {
    long t0 = launchedAt;
    List<ManagedChannel> ch = Rpc.channels(List.of(endpoint), 1, access);
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      RangeRequest probe = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8("health")).build();
      while (true) {
        if (!process.isAlive()) throw new IllegalStateException(name() + " exited; see " + log);
        try {
          Rpc.call(ch.get(0), Rpc.RANGE, probe).get(2, TimeUnit.SECONDS);
          return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        } catch (Exception notYet) {
          if (System.nanoTime() > deadline) throw new IllegalStateException(name() + " not serving; see " + log);
          Thread.sleep(20); // polling the server's first answer, bounded by the deadline
          // A refused connection puts the channel in gRPC's reconnect backoff (1 s, then 1.6 x
          // longer, jittered): without this the figure would include the client's wait, not the
          // server's start (it added up to 3.5 s to a 6 s restart).
          ch.get(0).resetConnectBackoff();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      Rpc.shutdown(ch);
    }
  }

  /** kill -9, and wait for the process to end. */
  void kill() {
    if (process == null) return;
    try {
      process.destroyForcibly().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** SIGTERM, and wait for the process to end. */
  void stop() {
    if (process == null) return;
    process.destroy();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** User + system CPU of the server process so far, in milliseconds. */
  long cpuMillis() {
    return ProcessCpu.millis(pid());
  }

  /** Resident set size in bytes (VmRSS). */
  long rssBytes() {
    return statusBytes("VmRSS:");
  }

  /** The resident set's private part: without mapped files (LevelDB's tables, bbolt's file). */
  long rssAnonBytes() {
    return statusBytes("RssAnon:");
  }

  private long statusBytes(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith(field)) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
      return -1;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Bytes of live heap after a full collection: for akka-etcd the JVM heap in use after {@code jcmd
   * GC.run}; for etcd Go's heap in use (/metrics, go_memstats_heap_inuse_bytes) after a heap profile
   * request with gc=1, which runs Go's collector (etcd must run with --enable-pprof). -1 if unreadable.
   */
  long liveHeapBytes() {
    try {
      if (kind == Kind.AKKA_ETCD) {
        run("jcmd", Long.toString(pid()), "GC.run");
        Matcher m = Pattern.compile("total \\d+K, used (\\d+)K").matcher(run("jcmd", Long.toString(pid()), "GC.heap_info"));
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : -1;
      }
      HttpClient http = HttpClient.newHttpClient();
      http.send(HttpRequest.newBuilder(URI.create("http://" + endpoint + "/debug/pprof/heap?gc=1")).build(),
          HttpResponse.BodyHandlers.discarding());
      HttpResponse<String> r = http.send(
          HttpRequest.newBuilder(URI.create("http://" + endpoint + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      Matcher m = Pattern.compile("(?m)^go_memstats_heap_inuse_bytes ([0-9.e+]+)$").matcher(r.body());
      return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  @Override
  public void close() {
    stop();
    deleteTree(dataDir);
  }

  /** Deletes a directory and everything under it, if it exists. */
  static void deleteTree(Path dir) {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Ports handed out in this run: the kernel may offer a just-closed port again (a cluster got one twice). */
  private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static int freePort() {
    while (true) {
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
