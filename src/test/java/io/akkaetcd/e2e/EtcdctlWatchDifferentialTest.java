package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code etcdctl watch} against real etcd and akka-etcd after the same writes: live watches (from
 * the next revision), ranges, prefixes with prev-kv, history replay, JSON output and a watch at a
 * compacted revision (and one from the compaction revision, which etcd serves) must print the
 * same. Every watch starts at an explicit revision, so it sees
 * the same events however late it connects; it is stopped once its output shows the final write.
 * Each test runs with bare {@code host:port} endpoints and with {@code http://host:port}.
 */
class EtcdctlWatchDifferentialTest {
  /**
   * The watches: name → etcdctl arguments after "watch". Text output does not show how events are
   * grouped into responses, so these start before the writes and see them live. JSON output does:
   * the JSON watch starts after the writes, so that on both servers it replays them from history.
   */
  private static final Map<String, List<String>> WATCHES = new LinkedHashMap<>();
  private static final String AFTER_WRITES = "single-key-json";
  /** Started after the compaction at 6, from 6: etcd serves a watch from the compaction revision on. */
  private static final String AT_COMPACTION = "from-compaction-revision";

  static {
    WATCHES.put("prefix-prev-kv", List.of("--prefix", "f", "--prev-kv", "--rev", "2"));
    WATCHES.put("range", List.of("a", "zzz", "--rev", "2"));
    WATCHES.put("all-from-history", List.of("--prefix", "", "--rev", "3"));
    WATCHES.put(AFTER_WRITES, List.of("foo", "--rev", "2", "-w", "json"));
    WATCHES.put(AT_COMPACTION, List.of("--prefix", "", "--rev", "6"));
  }

  @ParameterizedTest
  @EnumSource(EndpointForm.class)
  void watchesPrintWhatEtcdPrints(EndpointForm form) throws Exception {
    String peer = "http://127.0.0.1:" + Ports.free();
    try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.ETCD, peer, List.of());
         ServerProcess akka = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, peer, List.of())) {
      Map<String, String> expected = play(form.of(etcd), etcd.kind());
      Map<String, String> actual = play(form.of(akka), akka.kind());
      for (String name : WATCHES.keySet()) {
        assertEquals(expected.get(name), actual.get(name), "watch " + name + "\n" + akka.log());
      }
      assertTrue(expected.get("all-from-history").contains("zz-end"));
      assertTrue(expected.get(AT_COMPACTION).startsWith("PUT\nf1\na\nPUT\nf2\nb\n"), expected.get(AT_COMPACTION));
      Etcdctl.Result compactedEtcd = Etcdctl.run(form.of(etcd), "watch", "--prefix", "", "--rev", "2");
      Etcdctl.Result compactedAkka = Etcdctl.run(form.of(akka), "watch", "--prefix", "", "--rev", "2");
      assertEquals(EtcdctlDifferentialTest.normalize(compactedEtcd), EtcdctlDifferentialTest.normalize(compactedAkka));
      assertTrue(compactedAkka.stderr().contains("required revision has been compacted"), compactedAkka.all());
    }
  }

  private static Path startWatch(String endpoint, String name, List<Process> watchers) throws IOException {
    Path out = Files.createTempFile("watch-" + name, ".out");
    List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints=" + endpoint, "watch"));
    cmd.addAll(WATCHES.get(name));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().put("ETCDCTL_API", "3");
    watchers.add(pb.start());
    return out;
  }

  /**
   * Writes the scenario, runs every watch until it shows the final key, compacts at 6 and watches
   * from 6; returns the outputs.
   */
  private static Map<String, String> play(String e, ServerProcess.Kind kind) throws Exception {
    List<Process> watchers = new ArrayList<>();
    Map<String, Path> outputs = new LinkedHashMap<>();
    try {
      for (String name : WATCHES.keySet()) {
        if (!name.equals(AFTER_WRITES) && !name.equals(AT_COMPACTION)) {
          outputs.put(name, startWatch(e, name, watchers));
        }
      }
      Etcdctl.run(e, "put", "foo", "1");                               // 2
      Etcdctl.run(e, "put", "foo", "2");                               // 3
      Etcdctl.run(e, "put", "bar", "3");                               // 4
      Etcdctl.run(e, "del", "foo");                                    // 5
      // (no compares; success: two puts; no failure ops)
      Etcdctl.run(e, "\nput f1 a\nput f2 b\n\n\n", List.of("txn"));    // 6: one revision, two events
      Etcdctl.run(e, "put", "foo", "again");                           // 7
      Etcdctl.run(e, "del", "--prefix", "f");                          // 8
      Etcdctl.run(e, "put", "zz-end", "x");                            // 9
      outputs.put(AFTER_WRITES, startWatch(e, AFTER_WRITES, watchers));
      awaitMarkers(kind, outputs);
    } finally {
      stopAll(watchers);
    }
    Etcdctl.run(e, "compaction", "6");
    try {
      outputs.put(AT_COMPACTION, startWatch(e, AT_COMPACTION, watchers));
      awaitMarkers(kind, Map.of(AT_COMPACTION, outputs.get(AT_COMPACTION)));
    } finally {
      stopAll(watchers);
    }
    Map<String, String> result = new LinkedHashMap<>();
    for (Map.Entry<String, Path> o : outputs.entrySet()) {
      result.put(o.getKey(), Files.readString(o.getValue()));
      Files.deleteIfExists(o.getValue());
    }
    return result;
  }

  private static void stopAll(List<Process> watchers) throws InterruptedException {
    for (Process p : watchers) {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    watchers.clear();
  }

  /** Waits until every watch's output shows its last event. */
  private static void awaitMarkers(ServerProcess.Kind kind, Map<String, Path> outputs) throws IOException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    for (Map.Entry<String, Path> o : outputs.entrySet()) {
      String marker = o.getKey().equals("single-key-json") ? "\"mod_revision\":8" : "zz-end";
      if (o.getKey().equals("prefix-prev-kv")) {
        marker = "DELETE\nf2\nb\nf2\n"; // a delete with prev-kv prints the previous kv first
      }
      while (!Files.readString(o.getValue()).contains(marker)) {
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError(o.getKey() + " on " + kind + " never showed " + marker + ":\n"
              + Files.readString(o.getValue()));
        }
        Thread.onSpinWait();
      }
    }
  }

  /**
   * {@code etcdctl watch -i}: watch commands read from stdin. One command per session (the output
   * of two watches interleaves differently from run to run); stdin is closed once the events are
   * printed, and etcdctl then ends with its EOF error, which must be the same too.
   */
  @ParameterizedTest
  @EnumSource(EndpointForm.class)
  void interactiveWatchPrintsWhatEtcdPrints(EndpointForm form) throws Exception {
    String peer = "http://127.0.0.1:" + Ports.free();
    try (ServerProcess etcd = ServerProcess.start(ServerProcess.Kind.ETCD, peer, List.of());
         ServerProcess akka = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, peer, List.of())) {
      for (String command : List.of("watch --prefix f --rev 2 --prev-kv", "watch foo --rev 3", "watch a zzz --rev 2")) {
        assertEquals(interactive(form.of(etcd), etcd.kind(), command), interactive(form.of(akka), akka.kind(), command),
            command + "\n" + akka.log());
      }
    }
  }

  /** Writes the same keys, runs one interactive watch until it shows the last write, then closes stdin. */
  private static String interactive(String e, ServerProcess.Kind kind, String command) throws Exception {
    if (Etcdctl.run(e, "get", "zz-end").stdout().isEmpty()) {
      Etcdctl.run(e, "put", "foo", "1");       // 2
      Etcdctl.run(e, "put", "fa", "2");        // 3
      Etcdctl.run(e, "put", "foo", "3");       // 4
      Etcdctl.run(e, "del", "fa");             // 5
      Etcdctl.run(e, "put", "zz-end", "x");    // 6
    }
    Path out = Files.createTempFile("watch-i", ".out");
    ProcessBuilder pb = new ProcessBuilder("etcdctl", "--endpoints=" + e, "watch", "-i")
        .redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().put("ETCDCTL_API", "3");
    Process p = pb.start();
    try {
      p.getOutputStream().write((command + "\n").getBytes());
      p.getOutputStream().flush();
      // the last event printed in full (a delete with prev-kv: previous key and value, key, empty value)
      String marker = command.startsWith("watch foo") ? "foo\n3\n" : "zz-end\nx\n";
      if (command.contains("--prefix f")) {
        marker = "DELETE\nfa\n2\nfa\n\n";
      }
      Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
      while (!Files.readString(out).contains(marker)) {
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError(command + " on " + kind + " never showed " + marker + ":\n" + Files.readString(out));
        }
        Thread.onSpinWait();
      }
      p.getOutputStream().close();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("etcdctl watch -i did not end at EOF on " + kind);
      }
      return Files.readString(out) + "exit " + p.exitValue();
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(out);
    }
  }
}
