package io.akkaetcd.examples.election;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Three nodes of the example, each a JVM with its member embedded: they agree on one leader, which
 * runs the job; a configuration key put through one node's client URL reaches all three; when the
 * leader's JVM is killed, another node takes over once the dead leader's lease expires (its TTL
 * plus a Raft election, if it led Raft too) and the job carries on from the count the dead leader
 * left. Deadlines are generous: three JVMs on a busy machine.
 */
class ElectionFailoverTest {
  private static final Duration START = Duration.ofSeconds(300);
  private static final Duration WITHIN = Duration.ofSeconds(120);
  private static final int TICKS = 3;

  record Leader(String name, long term) {}

  @Test
  void oneLeaderRunsTheJobEveryNodeAppliesConfigAndAnotherLeadsWhenItDies() throws Exception {
    Lines lines = new Lines();
    List<NodeProcess> nodes = List.of(new NodeProcess("n1", lines), new NodeProcess("n2", lines),
        new NodeProcess("n3", lines));
    String initialCluster = nodes.stream().map(n -> n.name() + "=" + n.peerUrl()).collect(Collectors.joining(","));
    try {
      nodes.forEach(n -> n.start(initialCluster));
      Set<String> all = names(nodes);
      lines.await("READY from every node", START,
          ls -> Optional.of(true).filter(t -> ls.stream().filter(l -> l.text().startsWith("READY ")).count() == 3));

      lines.await("one leader all agree on, its job ticking " + TICKS + " times", WITHIN,
          ls -> agreedLeader(ls, all).flatMap(l -> tick(ls, l, TICKS)));
      try (Client etcd = client(nodes)) {
        put(etcd, "/config/greeting", "hello");
      }
      for (NodeProcess n : nodes) {
        lines.await(n.name() + " applying /config/greeting", WITHIN, ls -> said(ls, n.name(), "CONFIG /config/greeting=hello"));
      }

      // On a loaded machine a lease may expire by itself and another node win: kill whoever leads now.
      Leader killed;
      try (Client etcd = client(nodes)) {
        killed = leaderNamedByKey(lines, all, etcd);
      }
      NodeProcess dead = nodes.stream().filter(n -> n.name().equals(killed.name())).findFirst().orElseThrow();
      dead.kill();
      long lastTickBeforeKill = maxTick(lines.all());
      List<NodeProcess> survivors = nodes.stream().filter(n -> n != dead).toList();
      Set<String> alive = names(survivors);
      // Every count a leader printed was written before the next leader's key existed (writes are
      // fenced by the term), and the next leader counts on from what it reads after winning.
      Leader next = lines.await("a new leader the survivors agree on, its job counting past " + lastTickBeforeKill,
          WITHIN, ls -> agreedLeader(ls, alive).filter(l -> l.term() > killed.term())
              .filter(l -> tick(ls, l, 1).orElse(0L) > lastTickBeforeKill));
      long firstOfNext = ticks(lines.all(), next).get(0);
      long lastOfKilled = ticks(lines.all(), killed).stream().mapToLong(Long::longValue).max().orElse(0);
      assertTrue(firstOfNext > lastOfKilled,
          "the new leader counts on from the store (" + firstOfNext + " after " + lastOfKilled + ")");
      long carriedOn = tick(lines.all(), next, 1).orElseThrow();

      try (Client etcd = client(survivors)) {
        leaderNamedByKey(lines, alive, etcd);
        assertTrue(Long.parseLong(get(etcd, "/job/ticks")) >= carriedOn, "the counter holds the job's count");
        put(etcd, "/config/mode", "after-failover");
      }
      for (NodeProcess n : survivors) {
        lines.await(n.name() + " applying /config/mode", WITHIN, ls -> said(ls, n.name(), "CONFIG /config/mode=after-failover"));
      }
      assertTermsUnique(lines.all());
    } catch (AssertionError | RuntimeException e) {
      StringBuilder logs = new StringBuilder(e.getMessage() == null ? e.toString() : e.getMessage());
      nodes.forEach(n -> logs.append("\n").append(n.logTail(40)));
      throw new AssertionError(logs.toString(), e);
    } finally {
      System.out.print(lines); // the run's story, seconds from the start
      for (NodeProcess n : nodes) {
        n.close();
      }
    }
  }

  private static Set<String> names(List<NodeProcess> nodes) {
    return nodes.stream().map(NodeProcess::name).collect(Collectors.toSet());
  }

  /**
   * The leader {@code nodes} agree on: each one's latest role line is either LEADER in a term, for
   * exactly one of them, or FOLLOWER of that one in that term.
   */
  static Optional<Leader> agreedLeader(List<Lines.Line> lines, Set<String> nodes) {
    Map<String, String[]> role = new HashMap<>();
    for (Lines.Line l : lines) {
      String[] w = l.words();
      if (nodes.contains(l.node()) && List.of("LEADER", "FOLLOWER", "RESIGNED").contains(w[0])) {
        role.put(l.node(), w);
      }
    }
    List<String[]> leaders = role.values().stream().filter(w -> w[0].equals("LEADER")).toList();
    if (!role.keySet().equals(nodes) || leaders.size() != 1) {
      return Optional.empty();
    }
    Leader leader = new Leader(leaders.get(0)[1], Long.parseLong(leaders.get(0)[2]));
    boolean followed = role.values().stream().allMatch(w -> w[0].equals("LEADER")
        || (w[0].equals("FOLLOWER") && w[2].equals(leader.name()) && Long.parseLong(w[3]) == leader.term()));
    return followed ? Optional.of(leader) : Optional.empty();
  }

  /** The latest count of {@code leader}'s job once it has ticked {@code count} times, increasing. */
  static Optional<Long> tick(List<Lines.Line> lines, Leader leader, int count) {
    List<Long> ticks = ticks(lines, leader);
    for (int i = 1; i < ticks.size(); i++) {
      assertTrue(ticks.get(i) > ticks.get(i - 1), "the job's count goes up: " + ticks);
    }
    return ticks.size() >= count ? Optional.of(ticks.get(ticks.size() - 1)) : Optional.empty();
  }

  /** The highest count any leader's job printed. */
  static long maxTick(List<Lines.Line> lines) {
    return lines.stream().map(Lines.Line::words).filter(w -> w[0].equals("TICK"))
        .mapToLong(w -> Long.parseLong(w[3])).max().orElseThrow();
  }

  private static List<Long> ticks(List<Lines.Line> lines, Leader leader) {
    List<Long> ticks = new ArrayList<>();
    for (Lines.Line l : lines) {
      String[] w = l.words();
      if (w[0].equals("TICK") && w[1].equals(leader.name()) && Long.parseLong(w[2]) == leader.term()) {
        ticks.add(Long.parseLong(w[3]));
      }
    }
    return ticks;
  }

  static Optional<Boolean> said(List<Lines.Line> lines, String node, String text) {
    return lines.stream().anyMatch(l -> l.node().equals(node) && l.text().equals(text)) ? Optional.of(true)
        : Optional.empty();
  }

  /** No two LEADER lines, of any nodes, name the same term: the key's create revision is one holder's. */
  static void assertTermsUnique(List<Lines.Line> lines) {
    Set<String> terms = new HashSet<>();
    for (Lines.Line l : lines) {
      if (l.text().startsWith("LEADER ")) {
        assertTrue(terms.add(l.words()[2]), "two leaders in term " + l.words()[2] + ":\n" + lines);
      }
    }
  }

  /** The leader {@code nodes} agree on, once the election key in the store names it too. */
  private static Leader leaderNamedByKey(Lines lines, Set<String> nodes, Client etcd) throws Exception {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      Leader leader = lines.await("one leader " + nodes + " agree on", WITHIN, ls -> agreedLeader(ls, nodes));
      String holder = get(etcd, "/election/job");
      if (holder.equals(leader.name())) {
        return leader;
      }
      assertTrue(System.nanoTime() - deadline < 0, "the election key names " + holder + ", the nodes " + leader);
    }
  }

  private static Client client(List<NodeProcess> nodes) {
    return Client.builder().endpoints(nodes.stream().map(NodeProcess::clientUrl).toArray(String[]::new)).build();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** Puts through the client URLs, again on failure (a Raft election may be under way), within the deadline. */
  private static void put(Client etcd, String key, String value) throws InterruptedException {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      try {
        etcd.getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
        return;
      } catch (Exception e) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("put " + key + " failed until the deadline", e);
        }
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // back off before the next attempt
      }
    }
  }

  private static String get(Client etcd, String key) throws Exception {
    var kvs = etcd.getKVClient().get(bytes(key)).get(30, TimeUnit.SECONDS).getKvs();
    return kvs.isEmpty() ? "" : kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
  }
}
