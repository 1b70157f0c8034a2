package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A seeded simulated network of RaftCores: messages are delayed, reordered, dropped and
 * duplicated, members are partitioned and restarted from their durable storage. After every step
 * it checks Raft's safety properties (Raft §5.2, §5.3, §5.4, Figure 3): election safety, log
 * matching, leader completeness and state-machine safety, and that every read index covers
 * whatever was committed before the read was asked (linearizable reads, thesis §6.4). On failure
 * the seed is printed; replay one run with {@code -Draft.sim.seed=N}; {@code -Draft.sim.runs=N}
 * runs more random seeds.
 */
class RaftSimulationTest {
  private static final int STEPS = 6000;

  private final class Node {
    final long id;
    final MemoryStorage storage = new MemoryStorage();
    RaftCore core;
    long applied;
    final List<Entry> appliedEntries = new ArrayList<>();

    Node(long id, List<Long> voters, SplittableRandom random) {
      this.id = id;
      storage.bootstrap();
      start(voters, random);
    }

    void start(List<Long> voters, SplittableRandom random) {
      core = new RaftCore(new RaftConfig(id, voters, learners, 10, 1, applied, 64, 4096, true, true, random.split()), storage);
    }
  }

  private record InFlight(Message m, int deliverAt) {}

  private SplittableRandom random;
  private List<Long> learners = List.of();
  private List<Node> nodes;
  private List<InFlight> network;
  private Set<Long> isolated;
  private final Map<Long, Long> leaderOfTerm = new HashMap<>();
  /** index → the entry every member applied there (state-machine safety). */
  private final Map<Long, Entry> appliedAt = new HashMap<>();
  /**
   * index → the highest term any member had when the entry was first applied: the term it was
   * committed in is at most that, so every leader of a higher term must hold it.
   */
  private final Map<Long, Long> committedByTerm = new HashMap<>();
  /** read context → the highest commit index any member knew when the read was asked. */
  private final Map<String, Long> readsAsked = new HashMap<>();
  private final Set<String> readsDone = new HashSet<>();
  private int readsAnswered;
  private boolean lossless;
  private int now;
  private int proposalsCommitted;
  private int snapshotsInstalled;

  @ParameterizedTest
  @ValueSource(ints = {3, 5})
  void safetyHoldsUnderFaults(int size) {
    String fixed = System.getProperty("raft.sim.seed");
    int runs = fixed != null ? 1 : Integer.getInteger("raft.sim.runs", 6);
    for (int run = 0; run < runs; run++) {
      long seed = fixed != null ? Long.parseLong(fixed) : System.nanoTime() + run;
      try {
        simulate(size, seed);
      } catch (AssertionError | RuntimeException e) {
        fail("raft simulation with " + size + " members failed; replay with -Draft.sim.seed=" + seed, e);
      }
    }
  }

  private void simulate(int size, long seed) {
    random = new SplittableRandom(seed);
    List<Long> voters = new ArrayList<>();
    for (long i = 1; i <= size; i++) {
      voters.add(i);
    }
    nodes = new ArrayList<>();
    // One more member, a learner: it gets the log but never votes, counts or leads.
    learners = List.of((long) size + 1);
    for (long id = 1; id <= size + 1; id++) {
      nodes.add(new Node(id, voters, random));
    }
    network = new ArrayList<>();
    isolated = new HashSet<>();
    leaderOfTerm.clear();
    appliedAt.clear();
    committedByTerm.clear();
    readsAsked.clear();
    lossless = false;
    readsDone.clear();
    readsAnswered = 0;
    now = 0;
    proposalsCommitted = 0;
    snapshotsInstalled = 0;
    int proposalNo = 0;

    for (int step = 0; step < STEPS; step++) {
      now++;
      int action = random.nextInt(100);
      if (action < 45) {
        deliverDue();
      } else if (action < 75) {
        node(random.nextInt(size + 1)).core.tick();
      } else if (action < 88) {
        Node n = node(random.nextInt(size + 1));
        try {
          n.core.propose(List.of(ByteString.copyFromUtf8("p" + proposalNo++)));
        } catch (ProposalDroppedException ignored) {
          // no leader known: a client would retry
        }
      } else if (action < 90) {
        Node n = node(random.nextInt(size + 1));
        String ctx = n.id + ":r" + step;
        long known = nodes.stream().mapToLong(x -> x.core.committedIndex()).max().orElse(0);
        try {
          n.core.readIndex(ByteString.copyFromUtf8(ctx));
          readsAsked.put(ctx, known);
        } catch (ProposalDroppedException ignored) {
          // no leader known
        }
      } else if (action < 93) {
        changePartition(size);
      } else if (action < 95) {
        restart(node(random.nextInt(size + 1)), voters);
      } else if (action < 96) {
        // a leadership transfer asked of a random member (only a leader acts on it)
        node(random.nextInt(size + 1)).core.transferLeadership(1L + random.nextInt(size));
      } else {
        deliverDue();
      }
      nodes.forEach(this::drain);
      checkSafety();
    }
    // Heal and let the cluster settle on a lossless network: it must make progress and converge.
    isolated.clear();
    lossless = true;
    settle(3000);
    // Whatever the faults did, one lagging member must catch up from a snapshot: the learner is
    // cut off while the leader commits and compacts past it (a learner never campaigns, so the
    // leader stays put), then the partition heals.
    Node leader = currentLeader();
    Node learner = nodes.get(size);
    int installedBefore = snapshotsInstalled;
    isolated.add(learner.id);
    for (int i = 0; i < 20; i++) {
      leader.core.propose(List.of(ByteString.copyFromUtf8("lag" + i)));
      settle(5);
    }
    assertTrue(leader.applied > learner.applied, "the leader applied past the cut-off learner");
    leader.storage.compact(leader.applied);
    isolated.clear();
    settle(200);
    assertTrue(snapshotsInstalled > installedBefore, "the lagging learner caught up from a snapshot");
    leader = currentLeader();
    leader.core.propose(List.of(ByteString.copyFromUtf8("final")));
    List<String> finalReads = new ArrayList<>();
    for (Node n : nodes) {
      String ctx = n.id + ":final";
      readsAsked.put(ctx, nodes.stream().mapToLong(x -> x.core.committedIndex()).max().orElse(0));
      n.core.readIndex(ByteString.copyFromUtf8(ctx));
      finalReads.add(ctx);
    }
    settle(200);
    long commit = leader.core.committedIndex();
    for (Node n : nodes) {
      assertEquals(commit, n.applied, "member " + n.id + " converged");
    }
    assertTrue(readsDone.containsAll(finalReads), "every read on the healed cluster was answered");
    assertTrue(appliedAt.values().stream().anyMatch(e -> e.data().toStringUtf8().equals("final")));
    assertTrue(proposalsCommitted > 50, "the faulty phase made progress too: " + proposalsCommitted);
    assertTrue(leaderOfTerm.size() > 1, "leadership changed under faults");
    assertTrue(readsAnswered > size, "reads were answered under faults too: " + readsAnswered);
  }

  /** Lossless rounds: everything in flight delivered, every member ticked and drained. */
  private void settle(int rounds) {
    for (int i = 0; i < rounds; i++) {
      now++;
      deliverAll();
      nodes.forEach(n -> n.core.tick());
      nodes.forEach(this::drain);
      checkSafety();
    }
  }

  private Node currentLeader() {
    return nodes.stream().filter(n -> n.core.role() == StateRole.LEADER).findFirst()
        .orElseThrow(() -> new AssertionError("no leader on the healed cluster"));
  }

  private Node node(int i) {
    return nodes.get(i);
  }

  private void drain(Node n) {
    while (n.core.hasReady()) {
      Ready rd = n.core.ready();
      if (rd.snapshot() != null) {
        n.storage.resetTo(rd.snapshot().index(), rd.snapshot().term());
      }
      n.storage.append(rd.entries());
      if (rd.hardState() != null) {
        n.storage.setHardState(rd.hardState());
      }
      for (Message m : rd.messages()) {
        if (m.type() == MessageType.SNAPSHOT) {
          // a transfer: it either arrives or is reported failed to the sender (see deliver)
          network.add(new InFlight(m, now + random.nextInt(8)));
          continue;
        }
        if (!lossless && random.nextInt(100) < 5) {
          continue; // dropped
        }
        network.add(new InFlight(m, now + random.nextInt(8)));
        if (!lossless && random.nextInt(100) < 3) {
          network.add(new InFlight(m, now + random.nextInt(20))); // duplicated
        }
      }
      for (Entry e : rd.committedEntries()) {
        Entry prior = appliedAt.putIfAbsent(e.index(), e);
        if (prior == null) {
          committedByTerm.put(e.index(), nodes.stream().mapToLong(x -> x.core.term()).max().orElse(0));
        }
        if (prior != null && !prior.equals(e)) {
          throw new AssertionError("state machine safety: index " + e.index() + " applied as " + prior
              + " and as " + e + " on member " + n.id);
        }
        if (e.index() <= n.applied) {
          continue; // covered by a snapshot this member installed: a driver skips it, as the applier does
        }
        assertEquals(n.applied + 1, e.index(), "applied in order without gaps on " + n.id);
        n.applied = e.index();
        if (!e.data().isEmpty()) {
          proposalsCommitted++;
        }
      }
      for (ReadState rs : rd.readStates()) {
        // A duplicated response may answer a read twice; the driver ignores contexts it no longer waits for.
        Long known = readsAsked.get(rs.requestCtx().toStringUtf8());
        if (known == null || !rs.requestCtx().toStringUtf8().startsWith(n.id + ":")) {
          throw new AssertionError("member " + n.id + " got an answer to a read it did not ask: " + rs);
        }
        if (!readsDone.add(rs.requestCtx().toStringUtf8())) {
          continue;
        }
        if (rs.index() < known) {
          throw new AssertionError("linearizable read: " + rs + " on member " + n.id
              + " misses index " + known + ", committed before the read was asked");
        }
        readsAnswered++;
      }
      n.core.advance(rd);
      if (random.nextInt(100) < 10 && n.applied - n.storage.firstIndex() > 10) {
        // the driver compacts its log behind what it applied: lagging members then need snapshots
        n.storage.compact(n.applied - random.nextInt(5));
      }
      if (learners.contains(n.id) && n.core.role() != StateRole.FOLLOWER) {
        throw new AssertionError("learner " + n.id + " became " + n.core.role());
      }
      if (n.core.role() == StateRole.LEADER) {
        Long prior = leaderOfTerm.putIfAbsent(n.core.term(), n.id);
        if (prior != null && prior != n.id) {
          throw new AssertionError("election safety: term " + n.core.term() + " has leaders " + prior + " and " + n.id);
        }
        checkLeaderCompleteness(n);
      }
    }
  }

  private void deliverDue() {
    List<InFlight> due = new ArrayList<>();
    for (InFlight f : network) {
      if (f.deliverAt() <= now) {
        due.add(f);
      }
    }
    if (due.isEmpty()) {
      return;
    }
    // A few due messages in random order: reordering among everything due.
    for (int i = 1 + random.nextInt(4); i > 0 && !due.isEmpty(); i--) {
      InFlight f = due.remove(random.nextInt(due.size()));
      network.remove(f);
      deliver(f.m());
    }
  }

  private void deliverAll() {
    List<InFlight> all = new ArrayList<>(network);
    network.clear();
    all.forEach(f -> deliver(f.m()));
  }

  private void deliver(Message m) {
    boolean cut = isolated.contains(m.from()) != isolated.contains(m.to());
    if (m.type() == MessageType.SNAPSHOT) {
      Node from = nodes.get((int) m.from() - 1);
      if (!cut) {
        sendSnapshot(from, nodes.get((int) m.to() - 1), m.term());
      }
      from.core.reportSnapshot(m.to());
      return;
    }
    if (cut) {
      return; // cut by the partition
    }
    // A forwarded proposal or read that finds no leader is dropped silently: step never throws.
    nodes.get((int) m.to() - 1).core.step(m);
  }

  /**
   * What a driver does for a SNAPSHOT message: the sender's state machine as it is now (its
   * applied index), installed on the receiver unless the receiver has applied as much already.
   */
  private void sendSnapshot(Node from, Node to, long leaderTerm) {
    long index = from.applied;
    if (index <= to.applied) {
      return; // refused as stale: the leader probes and appends instead
    }
    to.applied = index;
    to.core.installSnapshot(from.id, leaderTerm, new SnapshotPoint(index, appliedAt.get(index).term()),
        from.core.voters(), from.core.learners());
    snapshotsInstalled++;
  }

  private void changePartition(int size) {
    isolated.clear();
    if (random.nextBoolean()) {
      int cut = 1 + random.nextInt(size / 2);
      while (isolated.size() < cut) {
        isolated.add(1L + random.nextInt(size));
      }
    }
  }

  private void restart(Node n, List<Long> voters) {
    // What was in flight to or from it is lost with the process; its storage is what was persisted.
    // A snapshot transfer to it fails, and its sender hears so (a driver's transfer always ends).
    network.stream().filter(f -> f.m().to() == n.id && f.m().type() == MessageType.SNAPSHOT).toList()
        .forEach(f -> nodes.get((int) f.m().from() - 1).core.reportSnapshot(n.id));
    network.removeIf(f -> f.m().to() == n.id);
    n.start(voters, random);
  }

  private void checkSafety() {
    // Log matching (§5.3): same index and term ⇒ identical logs up to there.
    for (int i = 0; i < nodes.size(); i++) {
      for (int j = i + 1; j < nodes.size(); j++) {
        MemoryStorage a = nodes.get(i).storage;
        MemoryStorage b = nodes.get(j).storage;
        long last = Math.min(a.lastIndex(), b.lastIndex());
        long first = Math.max(a.firstIndex(), b.firstIndex()); // both hold entries from here on
        long matchAt = 0;
        for (long k = last; k >= first; k--) {
          if (a.term(k) == b.term(k)) {
            matchAt = k;
            break;
          }
        }
        if (matchAt > 0) {
          assertEquals(a.entries(first, matchAt + 1, Long.MAX_VALUE), b.entries(first, matchAt + 1, Long.MAX_VALUE),
              "log matching between " + nodes.get(i).id + " and " + nodes.get(j).id);
        }
      }
    }
  }

  /**
   * Leader completeness (§5.4): an entry committed in some term is in the log of every leader of
   * a higher term. (A stale leader of a lower term may still be around without it.)
   */
  private void checkLeaderCompleteness(Node leader) {
    for (Entry e : appliedAt.values()) {
      if (leader.core.term() <= committedByTerm.get(e.index())) {
        continue;
      }
      if (e.index() < leader.storage.firstIndex()) {
        continue; // compacted: the leader applied it (state-machine safety says it is this entry)
      }
      long ours = e.index() <= leader.storage.lastIndex() ? leader.storage.term(e.index()) : -1;
      if (ours != e.term()) {
        throw new AssertionError("leader completeness: leader " + leader.id + " of term " + leader.core.term()
            + " lacks committed " + e);
      }
    }
  }
}
