package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.e2e.Linearizability.Kind;
import io.akkaetcd.e2e.Linearizability.Op;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Three akka-etcd members (five with {@code -Dchaos.members=5}) as separate JVMs under faults: kill -9 of the leader, SIGSTOP of a
 * follower and of the leader, the leader cut off from the others, and a bridge (two members that
 * cannot reach each other but both reach the third). Meanwhile clients on every member read,
 * write, compare-and-swap and delete a few registers, and a writer puts distinct keys, every third
 * time in a txn of several puts and a delete (one revision, several events).
 *
 * <p>Checked afterwards: the register history is linearizable ({@link Linearizability}); every
 * acknowledged write is on every member; all members reach the same revision and HashKV; and the
 * watches on the writer's keys kept etcd's six watch guarantees ({@link WatchGuarantees}). Those
 * watches: one per member pinned to it from revision 1 (with progress notifications), one over
 * every member, and two opened mid-run at revisions taken from the writer's responses (one in the
 * past, so it replays history on a member just restarted; one on a member just thawed). The
 * leader's kill -9 breaks the stream of the watch pinned to it and jetcd resumes it; the watches
 * of a replaced member are resumed by the test on its successor from the last revision seen + 1.
 * Progress is also requested on every watch while the writer writes.
 *
 * <p>How members are started, cut off and replaced are hooks ({@link #startCluster},
 * {@link #isolate}, {@link #cutBetween}, {@link #healAll}, {@link #replacement},
 * {@link #moreFaults}): here the test launcher's peer filter on loopback; {@link NetnsChaosTest}
 * makes the faults in the network.
 */
class ClusterChaosTest {
  private static final List<String> REGISTERS = List.of("reg-0", "reg-1", "reg-2");
  /**
   * Longer than the server's request timeout (7 s), so that an operation stuck behind a fault
   * mostly ends with the server's answer rather than an unknown outcome.
   */
  private static final long OP_TIMEOUT_MS = 10_000;

  private final List<Op> history = new CopyOnWriteArrayList<>();
  private final Map<String, String> acked = new ConcurrentHashMap<>();
  /** The writer's acknowledged writes: revision → its events under {@value #WATCHED}, in operation order. */
  private final Map<Long, List<WatchGuarantees.Event>> written = new ConcurrentHashMap<>();
  /** The revision of the writer's latest acknowledged write. */
  private final AtomicLong lastWritten = new AtomicLong();
  private final List<RecordedWatch> watches = new CopyOnWriteArrayList<>();
  /** Every watch covers the writer's keys; the registers are outside. */
  private static final String WATCHED = "w/";
  /**
   * Progress notifications often enough that every fault sees some; logs that keep only 500
   * applied entries, so a member that was down or is new catches up from snapshots under load.
   */
  private static final List<String> FLAGS = List.of("--experimental-watch-progress-notify-interval", "250ms",
      "--snapshot-count", "500");
  private final AtomicBoolean stop = new AtomicBoolean();
  /** Members removed from the cluster by the test (their processes have stopped). */
  private final List<ServerProcess> retired = new ArrayList<>();
  private int joined;
  private static final int CLIENTS = 4;
  /** The register clients' connections, one member each (replaced when the member is). */
  private final java.util.concurrent.atomic.AtomicReferenceArray<Client> registerClients =
      new java.util.concurrent.atomic.AtomicReferenceArray<>(CLIENTS);
  private final ServerProcess[] pinnedTo = new ServerProcess[CLIENTS];

  /** Points register client {@code slot} at {@code member}; the old connection is closed at the end. */
  private void pin(int slot, ServerProcess member) {
    // Retries off: an operation is sent once, so its effect is the server's doing alone.
    Client old = registerClients.getAndSet(slot,
        client(member.clientUrl()).retryMaxAttempts(0).build());
    if (old != null) {
      oldClients.add(old);
    }
    pinnedTo[slot] = member;
  }

  private final List<Client> oldClients = new ArrayList<>();

  /** Cluster size: 3 in CI; {@code -Dchaos.members=5} for five. */
  private static final int MEMBERS = Integer.getInteger("chaos.members", 3);
  /** Fault cycles: 1 in CI; the soak runs more ({@code -Dchaos.rounds=20}). */
  private static final int ROUNDS = Integer.getInteger("chaos.rounds", 1);

  /** Starts the members: on loopback, cut off by the test launcher's peer filter. */
  List<ServerProcess> startCluster(int size, List<String> flags) {
    return ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, size, flags);
  }

  /** A member to replace {@code out} (not started yet). */
  ServerProcess replacement(String name, ServerProcess out, List<ServerProcess> members, List<String> flags) {
    return ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, name, members, flags);
  }

  /** Cuts {@code isolated} off from every other member, both ways. */
  void isolate(ServerProcess isolated, List<ServerProcess> members) {
    Set<String> others = members.stream().filter(m -> m != isolated).map(ServerProcess::name).collect(Collectors.toSet());
    isolated.cutOff(others);
    members.stream().filter(m -> m != isolated).forEach(m -> m.cutOff(Set.of(isolated.name())));
  }

  /** Cuts {@code a} and {@code b} off from each other, both ways. */
  void cutBetween(ServerProcess a, ServerProcess b) {
    a.cutOff(Set.of(b.name()));
    b.cutOff(Set.of(a.name()));
  }

  /** Heals every cut made by {@link #isolate} and {@link #cutBetween}. */
  void healAll(List<ServerProcess> members) {
    members.forEach(m -> m.cutOff(Set.of()));
  }

  /** A jetcd client builder for these endpoints: a mode adds TLS and credentials. */
  io.etcd.jetcd.ClientBuilder client(String... endpoints) {
    return Client.builder().endpoints(endpoints);
  }

  /** Flags etcdctl needs besides the members' TLS ones for membership, restarts and HashKV (e.g. root's). */
  String[] adminFlags() {
    return new String[0];
  }

  /** Checks a mode adds once the members converged and before the history is judged. */
  void finalChecks(List<ServerProcess> members) {
  }

  /** Faults a mode adds at the end of each cycle, under the same load and checks. */
  void moreFaults(List<ServerProcess> members) {
  }

  /** Stops what {@link #startCluster} made besides the members (after they stopped). */
  void tearDown() {
  }

  @Test
  void membersStayLinearizableUnderCrashesPausesAndPartitions() throws Exception {
    List<ServerProcess> members = startCluster(MEMBERS, FLAGS);
    List<Client> clients = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    try {
      String all = String.join(",", members.stream().map(ServerProcess::clientUrl).toList());
      watches.add(new RecordedWatch("any", 1, false, List.copyOf(members)));
      for (ServerProcess m : members) {
        watches.add(new RecordedWatch("on-" + m.name(), 1, true, List.of(m)));
      }

      for (int i = 0; i < CLIENTS; i++) {
        // Each client talks to one member, followers and leader alike, and moves to the new
        // member when its own is replaced.
        pin(i, members.get(i % MEMBERS));
        String name = "c" + i;
        int slot = i;
        Random random = new Random(i * 31L + 7);
        Thread t = new Thread(() -> registerClient(name, slot, random), name);
        workers.add(t);
      }
      Client writerClient = client(all.split(",")).retryMaxAttempts(0).build();
      clients.add(writerClient);
      workers.add(new Thread(() -> distinctWriter(writerClient.getKVClient()), "writer"));
      workers.forEach(Thread::start);

      awaitProgress(20);
      for (int round = 0; round < ROUNDS; round++) {
        faultCycle(members, round == 0);
      }

      stop.set(true);
      for (Thread t : workers) {
        t.join(30_000);
      }

      ServerProcess.awaitConverged(members, adminFlags());
      long last = 0;
      for (ServerProcess m : members) {
        Set<String> missing = new HashSet<>(acked.keySet());
        try (Client c = client(m.clientUrl()).build()) {
          GetResponse got = c.getKVClient().get(bytes(WATCHED), GetOption.builder().isPrefix(true)
              .withSerializable(true).build()).get(30, TimeUnit.SECONDS);
          last = Math.max(last, got.getHeader().getRevision());
          for (KeyValue kv : got.getKvs()) {
            String k = kv.getKey().toString(StandardCharsets.UTF_8);
            if (kv.getValue().toString(StandardCharsets.UTF_8).equals(acked.get(k))) {
              missing.remove(k);
            }
          }
        }
        assertTrue(missing.isEmpty(), m.name() + " lacks acknowledged writes " + missing.stream().limit(5).toList());
      }
      checkWatches(last);
      finalChecks(members);

      long ops = history.stream().filter(o -> !o.unknown()).count();
      System.out.println("history: " + history.size() + " register operations (" + ops + " with known outcome; unknown: "
          + history.stream().filter(Op::unknown).collect(Collectors.groupingBy(Op::kind, Collectors.counting()))
          + "), " + acked.size() + " acknowledged distinct writes");
      assertTrue(ops > 200, "too little progress to judge: " + ops + " operations");
      Linearizability.Result verdict = Linearizability.check(history);
      assertTrue(verdict.ok(), () -> "not linearizable on " + verdict.key() + ":\n"
          + verdict.ops().stream().map(Op::toString).collect(Collectors.joining("\n")));
    } finally {
      stop.set(true);
      retired.forEach(ServerProcess::close);
      oldClients.forEach(Client::close);
      for (int i = 0; i < CLIENTS; i++) {
        if (registerClients.get(i) != null) {
          registerClients.get(i).close();
        }
      }
      members.forEach(m -> {
        if (m.alive()) {
          m.resume();
        }
      });
      watches.forEach(RecordedWatch::close);
      clients.forEach(Client::close);
      members.forEach(ServerProcess::close);
      tearDown();
    }
  }

  /**
   * One cycle of faults, each under load and each healed before the next: kill -9 of the leader,
   * a frozen follower, the leader cut off, a bridge, a frozen leader, a follower replaced (member
   * remove, member add of a new one that joins and catches up). {@code members} follows the
   * replacement, and so do the watches on the member replaced. In the first cycle two watches are
   * opened on the way, at revisions taken from the writer's responses.
   */
  private void faultCycle(List<ServerProcess> members, boolean openWatches) {
    // 1. kill -9 the leader; the others elect a new one; the old one comes back and catches up.
    ServerProcess leader = ServerProcess.leader(members);
    Instant killed = Instant.now();
    leader.kill();
    ServerProcess next = ServerProcess.leader(members.stream().filter(m -> m != leader).toList());
    System.out.println("new leader " + next.name() + " " + Duration.between(killed, Instant.now()).toMillis()
        + " ms after kill -9 of " + leader.name());
    awaitProgress(20);
    leader.start(adminFlags());
    awaitProgress(20);
    if (openWatches) {
      // on the member just restarted, from 100 revisions back: it replays them from its history
      long from = Math.max(1, lastWritten.get() - 100);
      watches.add(new RecordedWatch("late-" + leader.name(), from, false, List.of(leader)));
    }

    // 2. a follower frozen for longer than an election timeout
    ServerProcess follower = members.stream().filter(m -> m != ServerProcess.leader(members)).findFirst().orElseThrow();
    follower.pause();
    awaitProgress(20);
    hold(Duration.ofSeconds(2));
    follower.resume();
    awaitProgress(20);

    // 3. the leader cut off from both followers, then healed
    ServerProcess isolated = ServerProcess.leader(members);
    Instant cut = Instant.now();
    isolate(isolated, members);
    ServerProcess successor = ServerProcess.leader(members.stream().filter(m -> m != isolated).toList());
    System.out.println("new leader " + successor.name() + " " + Duration.between(cut, Instant.now()).toMillis()
        + " ms after leader " + isolated.name() + " was cut off");
    awaitProgress(20);
    hold(Duration.ofSeconds(2));
    healAll(members);
    awaitProgress(20);

    // 4. a bridge: m1 and m3 cannot reach each other, both reach m2
    cutBetween(members.get(0), members.get(2));
    hold(Duration.ofSeconds(3));
    awaitProgress(20);
    healAll(members);

    // 5. the leader frozen for longer than an election timeout, then back with an old term
    ServerProcess frozen = ServerProcess.leader(members);
    frozen.pause();
    ServerProcess.leader(members.stream().filter(m -> m != frozen).toList());
    awaitProgress(20);
    frozen.resume();
    if (openWatches) {
      // on the member just thawed, from the writer's next revision, which it may not have reached yet
      watches.add(new RecordedWatch("thawed-" + frozen.name(), lastWritten.get() + 1, true, List.of(frozen)));
    }
    awaitProgress(20);

    // 6. a follower replaced under load: removed (its process stops), then a new member added,
    //    started with --initial-cluster-state existing, caught up from a snapshot of the leader's
    //    state machine (once the leader has dropped its first entries: awaitCompactedLog)
    ServerProcess current = ServerProcess.leader(members);
    awaitCompactedLog(current);
    ServerProcess out = members.stream().filter(m -> m != current).findFirst().orElseThrow();
    String id = out.memberIdHex();
    members.remove(out);
    retired.add(out);
    Etcdctl.Result removed = ServerProcess.reconfigure(endpoints(members), admin("member", "remove", id));
    assertEquals(0, removed.exit(), removed.all());
    assertTrue(out.awaitExit(), out.name() + " still runs after its removal");
    ServerProcess in = replacement("j" + (++joined), out, members, FLAGS);
    Etcdctl.Result added = ServerProcess.reconfigure(endpoints(members), admin("member", "add", in.name(),
        "--peer-urls=" + in.peerUrl()));
    assertEquals(0, added.exit(), added.all());
    members.add(in);
    in.start(adminFlags());
    for (int i = 0; i < CLIENTS; i++) {
      if (pinnedTo[i] == out) {
        pin(i, in);
      }
    }
    for (RecordedWatch w : watches) {
      if (w.on.contains(out)) {
        List<ServerProcess> to = w.on.size() == 1 ? List.of(in) : List.copyOf(members);
        w.moveTo(to, out.name() + " removed");
      }
    }
    awaitProgress(20);
    in.awaitLogged("restored its log from a snapshot", Duration.ofSeconds(20));
    moreFaults(members);
  }

  /** {@code args} after {@link #adminFlags()}. */
  String[] admin(String... args) {
    List<String> all = new ArrayList<>(List.of(adminFlags()));
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  static String endpoints(List<ServerProcess> members) {
    return String.join(",", members.stream().map(ServerProcess::endpoint).toList());
  }

  /** Random register operations, each recorded with its invocation and completion time. */
  private void registerClient(String name, int slot, Random random) {
    Map<String, String> lastSeen = new ConcurrentHashMap<>();
    for (int n = 0; !stop.get(); n++) {
      KV kv = registerClients.get(slot).getKVClient();
      String key = REGISTERS.get(random.nextInt(REGISTERS.size()));
      int dice = random.nextInt(10);
      long invoke = System.nanoTime();
      try {
        if (dice < 4) {
          GetResponse r = kv.get(bytes(key)).get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          String out = r.getKvs().isEmpty() ? null : r.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8);
          history.add(new Op(name, key, Kind.GET, null, null, out, null, invoke, System.nanoTime()));
          if (out != null) {
            lastSeen.put(key, out);
          }
        } else if (dice < 7) {
          String value = name + "-" + n;
          Op pending = new Op(name, key, Kind.PUT, value, null, null, null, invoke, Linearizability.UNKNOWN);
          try {
            kv.put(bytes(key), bytes(value)).get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          } catch (Exception e) {
            if (!notApplied(e)) {
              history.add(pending);
            }
            continue;
          }
          history.add(new Op(name, key, Kind.PUT, value, null, null, null, invoke, System.nanoTime()));
          lastSeen.put(key, value);
        } else if (dice < 9) {
          String expected = lastSeen.get(key);
          String value = name + "-" + n;
          Cmp cmp = expected == null
              ? new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.version(0))
              : new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.value(bytes(expected)));
          Boolean ok = null;
          try {
            ok = kv.txn().If(cmp).Then(io.etcd.jetcd.op.Op.put(bytes(key), bytes(value), PutOption.DEFAULT))
                .commit().get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS).isSucceeded();
          } catch (Exception e) {
            if (!notApplied(e)) {
              history.add(new Op(name, key, Kind.CAS, value, expected, null, null, invoke, Linearizability.UNKNOWN));
            }
            continue;
          }
          history.add(new Op(name, key, Kind.CAS, value, expected, null, ok, invoke, System.nanoTime()));
          if (ok) {
            lastSeen.put(key, value);
          }
        } else {
          try {
            kv.delete(bytes(key)).get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          } catch (Exception e) {
            if (!notApplied(e)) {
              history.add(new Op(name, key, Kind.DELETE, null, null, null, null, invoke, Linearizability.UNKNOWN));
            }
            continue;
          }
          history.add(new Op(name, key, Kind.DELETE, null, null, null, null, invoke, System.nanoTime()));
          lastSeen.remove(key);
        }
      } catch (Exception e) {
        // a failed read observed nothing: not recorded
      }
    }
  }

  /**
   * "etcdserver: no leader" on a write means the member dropped the proposal before it reached any
   * log: it was not applied and never will be. Any other failure leaves the outcome unknown.
   */
  private static boolean notApplied(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("etcdserver: no leader")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Puts distinct keys; every third write is a txn of three new keys and the delete of the key put
   * just before (one revision, four events, or three if that put was lost). Every few writes it
   * asks each watch for progress.
   */
  private void distinctWriter(KV kv) {
    for (int n = 0; !stop.get(); n++) {
      if (n % 8 == 0) {
        watches.forEach(RecordedWatch::requestProgress);
      }
      String key = String.format("w/%06d", n);
      String value = "v" + n;
      boolean txn = n % 3 == 2;
      String previous = String.format("w/%06d", n - 1);
      try {
        long revision;
        List<WatchGuarantees.Event> events = new ArrayList<>();
        if (txn) {
          List<String> keys = List.of(key + "-0", key + "-1", key + "-2");
          List<io.etcd.jetcd.op.Op> ops = new ArrayList<>();
          keys.forEach(k -> ops.add(io.etcd.jetcd.op.Op.put(bytes(k), bytes(value), PutOption.DEFAULT)));
          ops.add(io.etcd.jetcd.op.Op.delete(bytes(previous), DeleteOption.DEFAULT));
          TxnResponse r = kv.txn().Then(ops.toArray(io.etcd.jetcd.op.Op[]::new)).commit()
              .get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          revision = r.getHeader().getRevision();
          for (String k : keys) {
            events.add(WatchGuarantees.Event.put(k, revision, value));
            acked.put(k, value);
          }
          if (r.getDeleteResponses().get(0).getDeleted() > 0) {
            events.add(WatchGuarantees.Event.delete(previous, revision));
          }
          acked.remove(previous);
        } else {
          revision = kv.put(bytes(key), bytes(value)).get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS)
              .getHeader().getRevision();
          events.add(WatchGuarantees.Event.put(key, revision, value));
          acked.put(key, value);
        }
        written.put(revision, events);
        lastWritten.accumulateAndGet(revision, Math::max);
      } catch (Exception e) {
        // unknown outcome: not counted as acknowledged; the txn's delete may or may not have happened
        if (txn) {
          acked.remove(previous);
        }
      }
    }
  }

  /** Waits until {@code n} more register operations completed (the cluster makes progress). */
  void awaitProgress(int n) {
    long target = history.stream().filter(o -> !o.unknown()).count() + n;
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (history.stream().filter(o -> !o.unknown()).count() < target) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("no progress: fewer than " + n + " operations completed in 30 s");
      }
      Thread.onSpinWait();
      pause(20);
    }
  }

  private static final java.util.regex.Pattern RAFT_INDEX = java.util.regex.Pattern.compile("\"raftIndex\":(\\d+)");
  /**
   * Past this raft index a leader has dropped its first entries: it keeps its whole log until its
   * store's durable index (synced every 1,000 entries) is 1,000 entries past the log's first
   * (RaftMember.compactAppliedEntries, 500 kept here), so from about 2,000 entries on.
   */
  private static final long COMPACTED_LOG_INDEX = 2_100;

  /**
   * Waits (up to 5 minutes, while the load writes) until {@code leader}'s raft index is past
   * {@link #COMPACTED_LOG_INDEX}, so that a member added now catches up from a snapshot: a loaded
   * machine may not have written that many entries by the first replacement.
   */
  private void awaitCompactedLog(ServerProcess leader) {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
    long index = 0;
    while (index < COMPACTED_LOG_INDEX) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("raft index still " + index + " after 5 minutes of load");
      }
      java.util.regex.Matcher m = RAFT_INDEX.matcher(leader.ctl("endpoint", "status", "-w", "json").stdout());
      index = m.find() ? Long.parseLong(m.group(1)) : 0;
      if (index < COMPACTED_LOG_INDEX) {
        pause(500); // the writers' next entries; bounded by the deadline
      }
    }
  }

  /** Keeps a fault in place for a while under load (the duration is the fault, not a wait for a condition). */
  static void hold(Duration d) {
    pause(d.toMillis());
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Once every watch says (by a progress response) it got as far as {@code last}, the cluster's final
   * revision, checks the six guarantees on what each delivered, against the writer's acknowledged
   * writes and against each other.
   */
  private void checkWatches(long last) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    for (RecordedWatch w : watches) {
      while (w.vouchedUpTo() < last && Instant.now().isBefore(deadline)) {
        w.requestProgress();
        pause(100);
      }
    }
    List<WatchGuarantees.History> histories = new ArrayList<>();
    for (RecordedWatch w : watches) {
      WatchGuarantees.History h = w.history(last);
      histories.add(h);
      System.out.println("watch " + h.name() + " from " + h.start() + ": " + h.events().size() + " events, "
          + count(h, WatchGuarantees.Progress.class) + " progress responses, "
          + count(h, WatchGuarantees.Resumed.class) + " resumes, vouched up to " + w.vouchedUpTo() + " of " + last);
    }
    WatchGuarantees.Report report = WatchGuarantees.check(written, histories);
    assertTrue(report.ok(), report::toString);
    for (RecordedWatch w : watches) {
      assertTrue(w.vouchedUpTo() >= last, "watch " + w.name + " answered no progress request at revision " + last
          + " or later within 30 s (up to " + w.vouchedUpTo() + ")");
    }
    // what the checks are about did happen
    assertTrue(written.values().stream().anyMatch(events -> events.size() > 1), "no multi-key txn acknowledged");
    assertTrue(histories.stream().anyMatch(h -> count(h, WatchGuarantees.Resumed.class) > 0), "no watch was resumed");
  }

  private static long count(WatchGuarantees.History h, Class<? extends WatchGuarantees.Delivery> kind) {
    return h.deliveries().stream().filter(kind::isInstance).count();
  }

  /**
   * A watch on {@value #WATCHED} through its own jetcd client on the given members (one, or all),
   * recording every response as a {@link WatchGuarantees.Delivery}. jetcd resumes it when its
   * stream breaks (recorded as a resume); {@link #moveTo} resumes it on other members.
   *
   * <p>Never calls jetcd while holding its own lock: jetcd calls the listener while holding its own.
   */
  private final class RecordedWatch {
    final String name;
    final long start;
    private final boolean progressNotify;
    /** The members its client talks to. Confined to the test's main thread. */
    List<ServerProcess> on;
    private final List<WatchGuarantees.Delivery> deliveries = new ArrayList<>();
    /** Responses from a watcher replaced by {@link #moveTo} are no longer this watch's. */
    private int generation;
    private Client client;
    private Watch.Watcher watcher;

    RecordedWatch(String name, long start, boolean progressNotify, List<ServerProcess> on) {
      this.name = name;
      this.start = start;
      this.progressNotify = progressNotify;
      open(on, start, nextGeneration());
    }

    private synchronized int nextGeneration() {
      return ++generation;
    }

    private void open(List<ServerProcess> members, long from, int gen) {
      Client c = client(members.stream().map(ServerProcess::clientUrl).toArray(String[]::new)).build();
      Watch.Watcher w = c.getWatchClient().watch(bytes(WATCHED),
          WatchOption.builder().isPrefix(true).withRevision(from).withProgressNotify(progressNotify).build(),
          Watch.listener(r -> record(gen, r), e -> broken(gen, e)));
      synchronized (this) {
        on = members;
        client = c;
        watcher = w;
      }
    }

    private synchronized void record(int gen, WatchResponse r) {
      if (gen != generation) {
        return;
      }
      if (!r.getEvents().isEmpty()) {
        deliveries.add(new WatchGuarantees.Events(r.getEvents().stream().map(RecordedWatch::event).toList()));
      } else if (r.isProgressNotify()) {
        deliveries.add(new WatchGuarantees.Progress(r.getHeader().getRevision()));
      }
    }

    /** The last failure jetcd reported, printed once however often it repeats. */
    private String lastFailure;

    private synchronized void broken(int gen, Throwable e) {
      // jetcd wraps a failed Authenticate as Unauthenticated without a message: the cause tells why
      String failure = e.getMessage() + (e.getCause() != null ? " (cause: " + e.getCause() + ")" : "");
      if (!failure.equals(lastFailure)) {
        System.out.println("watch " + name + " failed: " + failure);
        lastFailure = failure;
      }
      // jetcd retries every half second while the member is down: one resume for all of them
      boolean resumedAlready = !deliveries.isEmpty()
          && deliveries.get(deliveries.size() - 1) instanceof WatchGuarantees.Resumed;
      if (gen == generation && !resumedAlready) {
        deliveries.add(new WatchGuarantees.Resumed(e.getMessage()));
      }
    }

    private static WatchGuarantees.Event event(WatchEvent e) {
      String key = e.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
      long revision = e.getKeyValue().getModRevision();
      return e.getEventType() == WatchEvent.EventType.DELETE
          ? WatchGuarantees.Event.delete(key, revision)
          : WatchGuarantees.Event.put(key, revision, e.getKeyValue().getValue().toString(StandardCharsets.UTF_8));
    }

    /** The highest revision this watch has seen: its last event or progress response. */
    private synchronized long seenUpTo() {
      long seen = start - 1;
      for (WatchGuarantees.Delivery d : deliveries) {
        if (d instanceof WatchGuarantees.Events e) {
          seen = Math.max(seen, e.events().get(e.events().size() - 1).revision());
        } else if (d instanceof WatchGuarantees.Progress p) {
          seen = Math.max(seen, p.revision());
        }
      }
      return seen;
    }

    /** The highest revision a progress response vouched for. */
    synchronized long vouchedUpTo() {
      return deliveries.stream().filter(d -> d instanceof WatchGuarantees.Progress)
          .mapToLong(d -> ((WatchGuarantees.Progress) d).revision()).max().orElse(0);
    }

    /** Closes this watch and resumes it on {@code members} from the last revision it saw + 1. */
    void moveTo(List<ServerProcess> members, String why) {
      long from;
      int gen;
      synchronized (this) {
        gen = nextGeneration();
        from = seenUpTo() + 1;
        deliveries.add(new WatchGuarantees.Resumed(why + ", resumed at " + from + " on "
            + members.stream().map(ServerProcess::name).toList()));
      }
      closeClient();
      open(members, from, gen);
    }

    void requestProgress() {
      Watch.Watcher w;
      synchronized (this) {
        w = watcher;
      }
      w.requestProgress();
    }

    WatchGuarantees.History history(long end) {
      synchronized (this) {
        return new WatchGuarantees.History(name, k -> k.startsWith(WATCHED), start, deliveries, end);
      }
    }

    void close() {
      nextGeneration();
      closeClient();
    }

    private void closeClient() {
      Watch.Watcher w;
      Client c;
      synchronized (this) {
        w = watcher;
        c = client;
      }
      w.close();
      c.close();
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
