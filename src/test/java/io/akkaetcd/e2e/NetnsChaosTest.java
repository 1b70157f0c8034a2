package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClusterChaosTest}'s cycle and checks with the faults coming from outside the processes:
 * every member runs the server's own Main in a network namespace of its own
 * ({@link NetnsHosts}, made by {@code bin/netns-cluster net up}), bound to its own address. The
 * leader is cut off by taking its link down; the bridge is a pair of blackhole routes; kill -9 and
 * SIGSTOP are signals as before; a replaced member's successor runs on its host. Each cycle then
 * adds the leader's link flapping, a one-way cut (the leader's packets to a follower dropped, the
 * follower's still arriving) and kill -9 of a follower. Separately, a member whose data directory
 * is a small tmpfs that fills up: writes are refused with etcd's NOSPACE error, reads go on, and
 * once space is freed writes work again and nothing acknowledged is lost.
 *
 * <p>Needs root and {@code ip netns}; skipped (an assumption) without them.
 */
class NetnsChaosTest extends ClusterChaosTest {
  private NetnsHosts net;
  private final Set<NetnsHosts.Host> linksDown = new java.util.HashSet<>();
  private final List<NetnsHosts.Host[]> oneWayCuts = new ArrayList<>();

  /**
   * The plain cycle plus the faults of {@link #moreFaults}: 166 s in one clean CI run, over the
   * 180 s default in the next (members took 10 s to start), so it gets 6 minutes of its own.
   */
  @Override
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void membersStayLinearizableUnderCrashesPausesAndPartitions() throws Exception {
    super.membersStayLinearizableUnderCrashesPausesAndPartitions();
  }

  @Override
  List<ServerProcess> startCluster(int size, List<String> flags) {
    return startCluster(size, flags, m -> { });
  }

  private List<ServerProcess> startCluster(int size, List<String> flags,
      java.util.function.Consumer<ServerProcess> before) {
    assumeTrue(NetnsHosts.available(), "needs root and ip netns");
    net = NetnsHosts.up(size);
    try {
      return ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, net.hosts(), flags, before);
    } catch (RuntimeException e) {
      tearDown();
      throw e;
    }
  }

  @Override
  ServerProcess replacement(String name, ServerProcess out, List<ServerProcess> members, List<String> flags) {
    return ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, name, members, ServerProcess.Tls.NONE, out.host(),
        flags);
  }

  @Override
  void isolate(ServerProcess isolated, List<ServerProcess> members) {
    net.link(isolated.host(), false);
    linksDown.add(isolated.host());
  }

  @Override
  void cutBetween(ServerProcess a, ServerProcess b) {
    oneWay(a, b);
    oneWay(b, a);
  }

  private void oneWay(ServerProcess from, ServerProcess to) {
    net.oneWay(from.host(), to.host(), true);
    oneWayCuts.add(new NetnsHosts.Host[] {from.host(), to.host()});
  }

  @Override
  void healAll(List<ServerProcess> members) {
    linksDown.forEach(h -> net.link(h, true));
    linksDown.clear();
    oneWayCuts.forEach(c -> net.oneWay(c[0], c[1], false));
    oneWayCuts.clear();
  }

  /**
   * 7. the leader's link flapping (down and up five times, 600 ms each, about half an election
   * timeout); 8. a one-way cut: the leader's packets to one follower are dropped, the follower's
   * to the leader still arrive (it hears no heartbeat, campaigns, and the cluster must settle);
   * 9. kill -9 of a follower and its restart.
   */
  @Override
  void moreFaults(List<ServerProcess> members) {
    ServerProcess leader = ServerProcess.leader(members);
    for (int i = 0; i < 5; i++) {
      net.link(leader.host(), false);
      hold(Duration.ofMillis(600));
      net.link(leader.host(), true);
      hold(Duration.ofMillis(600));
    }
    awaitProgress(20);

    ServerProcess from = ServerProcess.leader(members);
    ServerProcess to = members.stream().filter(m -> m != from).findFirst().orElseThrow();
    oneWay(from, to);
    hold(Duration.ofSeconds(3));
    awaitProgress(20);
    healAll(members);
    awaitProgress(20);

    ServerProcess current = ServerProcess.leader(members);
    ServerProcess follower = members.stream().filter(m -> m != current).findFirst().orElseThrow();
    follower.kill();
    awaitProgress(20);
    follower.start();
    awaitProgress(20);
  }

  @Override
  void tearDown() {
    if (net != null) {
      net.close();
      net = null;
    }
  }

  private static final String NO_SPACE = "etcdserver: mvcc: database space exceeded";
  /** m3's disk: a tmpfs of 48 MiB with 16 MiB kept free (below 8 MiB it stops writing). */
  private static final long RESERVE = 16L << 20;

  /**
   * m3's data directory is a 48 MiB tmpfs with a 16 MiB reserve. Filled to 12 MiB free: m3 raises
   * NOSPACE, every member refuses puts with etcd's error and serves reads; freed, m3 clears its
   * alarm and puts work again. Filled to 4 MiB free: m3 writes nothing (no SIGBUS, no crash) and
   * refuses puts at once, serializable reads on it go on, the other two take writes; freed, m3
   * catches up. Every acknowledged put is then on every member, HashKV converges, and m3 restarts
   * on its journal and store (nothing corrupt).
   */
  @Test
  void aMemberWhoseDiskFillsRefusesWritesServesReadsAndRecovers() throws Exception {
    List<ServerProcess> members = startCluster(3, List.of("-J-Dakka-etcd.disk-reserve=" + RESERVE),
        m -> {
          if (m.name().equals("m3")) {
            m.mountTmpfs("48m");
          }
        });
    ServerProcess full = members.get(2);
    ServerProcess other = members.get(0);
    Path filler = full.dataDir().resolve("filler");
    List<String> acked = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        put(other, "k" + i, acked);
      }

      // low: the alarm is raised through Raft, so every member refuses a put
      fill(full.dataDir(), filler, 12L << 20);
      awaitTrue(() -> other.ctl("put", "refused", "x").stderr().contains(NO_SPACE), "puts refused with NOSPACE",
          Duration.ofSeconds(30));
      Etcdctl.Result throughFull = full.ctl("put", "refused", "x");
      assertTrue(throughFull.stderr().contains(NO_SPACE), throughFull.all());
      assertTrue(other.ctl("alarm", "list").stdout().contains("alarm:NOSPACE"), "no NOSPACE alarm listed");
      for (ServerProcess m : members) {
        Etcdctl.Result got = m.ctl("get", "k0", "--print-value-only");
        assertEquals("v\n", got.stdout(), m.name() + " does not serve reads: " + got.all());
      }
      Files.delete(filler);
      awaitTrue(() -> other.ctl("put", "k-after-low", "v").exit() == 0, "puts work again once space is freed",
          Duration.ofSeconds(30));
      acked.add("k-after-low");
      assertEquals("", other.ctl("alarm", "list").stdout().trim(), "alarm still raised");

      // exhausted: m3 stops writing its log; it refuses puts itself, the other two go on
      fill(full.dataDir(), filler, 4L << 20);
      Etcdctl.Result refused = full.ctl("put", "refused", "x");
      assertTrue(refused.stderr().contains(NO_SPACE), refused.all());
      for (int i = 10; i < 20; i++) {
        put(other, "k" + i, acked);
      }
      Etcdctl.Result stale = full.ctl("get", "k0", "--print-value-only", "--consistency=s");
      assertEquals("v\n", stale.stdout(), stale.all());
      assertTrue(full.alive(), "m3 died on a full disk:\n" + full.log());
      Files.delete(filler);
      ServerProcess.awaitConverged(members);

      full.kill();
      full.start();
      ServerProcess.awaitConverged(members);
      for (ServerProcess m : members) {
        for (String k : acked) {
          Etcdctl.Result got = m.ctl("get", k, "--print-value-only", "--consistency=s");
          assertEquals("v\n", got.stdout(), m.name() + " lacks acknowledged " + k + ": " + got.all());
        }
      }
    } finally {
      Files.deleteIfExists(filler);
      members.forEach(ServerProcess::close);
      tearDown();
    }
  }

  /** Puts {@code key=v} through {@code m}, again while it fails (a leader may be changing), within 30 s. */
  private static void put(ServerProcess m, String key, List<String> acked) {
    awaitTrue(() -> m.ctl("put", key, "v").exit() == 0, "put " + key + " through " + m.name(),
        Duration.ofSeconds(30));
    acked.add(key);
  }

  /** Allocates {@code filler} so that about {@code free} bytes stay free on {@code dir}'s disk. */
  private static void fill(Path dir, Path filler, long free) {
    try {
      long usable = Files.getFileStore(dir).getUsableSpace();
      assertTrue(usable > free, "only " + usable + " bytes free already");
      Process p = new ProcessBuilder("fallocate", "-l", Long.toString(usable - free), filler.toString())
          .inheritIO().start();
      assertEquals(0, p.waitFor(), "fallocate failed");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void awaitTrue(Supplier<Boolean> condition, String what, Duration within) {
    Instant deadline = Instant.now().plus(within);
    while (!condition.get()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within " + within + ": " + what);
      }
    }
  }
}
