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
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Three akka-etcd members (five with {@code -Dchaos.members=5}) as separate JVMs under faults: kill -9 of the leader, SIGSTOP of a
 * follower and of the leader, the leader cut off from the others, and a bridge (two members that
 * cannot reach each other but both reach the third). Meanwhile clients on every member read,
 * write, compare-and-swap and delete a few registers, and a writer puts distinct keys.
 *
 * <p>Checked afterwards: the register history is linearizable ({@link Linearizability}); every
 * acknowledged write is on every member; all members reach the same revision and HashKV; a watch
 * opened at the start saw every acknowledged distinct key once, in revision order.
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
        Client.builder().endpoints(member.clientUrl()).retryMaxAttempts(0).build());
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

  @Test
  void membersStayLinearizableUnderCrashesPausesAndPartitions() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, MEMBERS, List.of());
    List<Client> clients = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    try {
      String all = String.join(",", members.stream().map(ServerProcess::clientUrl).toList());
      Client watchClient = Client.builder().endpoints(all.split(",")).build();
      clients.add(watchClient);
      List<WatchEvent> watched = new CopyOnWriteArrayList<>();
      watchClient.getWatchClient().watch(bytes("w/"),
          WatchOption.builder().isPrefix(true).withRevision(1).build(),
          Watch.listener(r -> watched.addAll(r.getEvents())));

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
      Client writerClient = Client.builder().endpoints(all.split(",")).retryMaxAttempts(0).build();
      clients.add(writerClient);
      workers.add(new Thread(() -> distinctWriter(writerClient.getKVClient()), "writer"));
      workers.forEach(Thread::start);

      awaitProgress(20);
      for (int round = 0; round < ROUNDS; round++) {
        faultCycle(members);
      }

      stop.set(true);
      for (Thread t : workers) {
        t.join(30_000);
      }

      ServerProcess.awaitConverged(members);
      for (ServerProcess m : members) {
        Set<String> missing = new HashSet<>(acked.keySet());
        try (Client c = Client.builder().endpoints(m.clientUrl()).build()) {
          GetResponse got = c.getKVClient().get(bytes("w/"), GetOption.builder().isPrefix(true)
              .withSerializable(true).build()).get(30, TimeUnit.SECONDS);
          for (KeyValue kv : got.getKvs()) {
            String k = kv.getKey().toString(StandardCharsets.UTF_8);
            if (kv.getValue().toString(StandardCharsets.UTF_8).equals(acked.get(k))) {
              missing.remove(k);
            }
          }
        }
        assertTrue(missing.isEmpty(), m.name() + " lacks acknowledged writes " + missing.stream().limit(5).toList());
      }
      checkWatch(watched);

      long ops = history.stream().filter(o -> !o.unknown()).count();
      System.out.println("history: " + history.size() + " register operations (" + ops + " with known outcome; unknown: "
          + history.stream().filter(Op::unknown).collect(Collectors.groupingBy(Op::kind, Collectors.counting()))
          + "), " + acked.size() + " acknowledged distinct writes");
      assertTrue(ops > 200, "too little progress to judge: " + ops + " operations");
      Linearizability.Result verdict = Linearizability.check(history);
      assertTrue(verdict.ok(), () -> "not linearizable on " + verdict.key() + ":\n"
          + verdict.ops().stream().map(Op::toString).collect(Collectors.joining("\n")));
    } catch (Throwable t) {
      members.forEach(m -> System.out.println("---- " + m.name() + " log\n" + m.log()));
      throw t;
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
      clients.forEach(Client::close);
      members.forEach(ServerProcess::close);
    }
  }

  /**
   * One cycle of faults, each under load and each healed before the next: kill -9 of the leader,
   * a frozen follower, the leader cut off, a bridge, a frozen leader, a follower replaced (member
   * remove, member add of a new one that joins and catches up). {@code members} follows the
   * replacement.
   */
  private void faultCycle(List<ServerProcess> members) {
    // 1. kill -9 the leader; the others elect a new one; the old one comes back and catches up.
    ServerProcess leader = ServerProcess.leader(members);
    Instant killed = Instant.now();
    leader.kill();
    ServerProcess next = ServerProcess.leader(members.stream().filter(m -> m != leader).toList());
    System.out.println("new leader " + next.name() + " " + Duration.between(killed, Instant.now()).toMillis()
        + " ms after kill -9 of " + leader.name());
    awaitProgress(20);
    leader.start();
    awaitProgress(20);

    // 2. a follower frozen for longer than an election timeout
    ServerProcess follower = members.stream().filter(m -> m != ServerProcess.leader(members)).findFirst().orElseThrow();
    follower.pause();
    awaitProgress(20);
    hold(Duration.ofSeconds(2));
    follower.resume();
    awaitProgress(20);

    // 3. the leader cut off from both followers, then healed
    ServerProcess isolated = ServerProcess.leader(members);
    Set<String> others = members.stream().filter(m -> m != isolated).map(ServerProcess::name).collect(Collectors.toSet());
    isolated.cutOff(others);
    members.stream().filter(m -> m != isolated).forEach(m -> m.cutOff(Set.of(isolated.name())));
    ServerProcess.leader(members.stream().filter(m -> m != isolated).toList());
    awaitProgress(20);
    hold(Duration.ofSeconds(2));
    members.forEach(m -> m.cutOff(Set.of()));
    awaitProgress(20);

    // 4. a bridge: m1 and m3 cannot reach each other, both reach m2
    members.get(0).cutOff(Set.of(members.get(2).name()));
    members.get(2).cutOff(Set.of(members.get(0).name()));
    hold(Duration.ofSeconds(3));
    awaitProgress(20);
    members.forEach(m -> m.cutOff(Set.of()));

    // 5. the leader frozen for longer than an election timeout, then back with an old term
    ServerProcess frozen = ServerProcess.leader(members);
    frozen.pause();
    ServerProcess.leader(members.stream().filter(m -> m != frozen).toList());
    awaitProgress(20);
    frozen.resume();
    awaitProgress(20);

    // 6. a follower replaced under load: removed (its process stops), then a new member added,
    //    started with --initial-cluster-state existing, caught up from the leader's log
    ServerProcess current = ServerProcess.leader(members);
    ServerProcess out = members.stream().filter(m -> m != current).findFirst().orElseThrow();
    String id = out.memberIdHex();
    members.remove(out);
    retired.add(out);
    Etcdctl.Result removed = ServerProcess.reconfigure(endpoints(members), "member", "remove", id);
    assertEquals(0, removed.exit(), removed.all());
    assertTrue(out.awaitExit(), out.name() + " still runs after its removal");
    ServerProcess in = ServerProcess.joining(ServerProcess.Kind.AKKA_ETCD, "j" + (++joined), members, List.of());
    Etcdctl.Result added = ServerProcess.reconfigure(endpoints(members), "member", "add", in.name(),
        "--peer-urls=" + in.peerUrl());
    assertEquals(0, added.exit(), added.all());
    members.add(in);
    in.start();
    for (int i = 0; i < CLIENTS; i++) {
      if (pinnedTo[i] == out) {
        pin(i, in);
      }
    }
    awaitProgress(20);
  }

  private static String endpoints(List<ServerProcess> members) {
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

  private void distinctWriter(KV kv) {
    for (int n = 0; !stop.get(); n++) {
      String key = String.format("w/%06d", n);
      String value = "v" + n;
      try {
        kv.put(bytes(key), bytes(value)).get(OP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        acked.put(key, value);
      } catch (Exception e) {
        // unknown outcome: not counted as acknowledged
      }
    }
  }

  /** Waits until {@code n} more register operations completed (the cluster makes progress). */
  private void awaitProgress(int n) {
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

  /** Keeps a fault in place for a while under load (the duration is the fault, not a wait for a condition). */
  private static void hold(Duration d) {
    pause(d.toMillis());
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }



  /** The watch saw every acknowledged key (once, as a put), in increasing revision order. */
  private void checkWatch(List<WatchEvent> watched) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (!seenAll(watched) && Instant.now().isBefore(deadline)) {
      pause(50);
    }
    List<WatchEvent> events = new ArrayList<>(watched);
    long previous = 0;
    Set<String> seen = new HashSet<>();
    for (WatchEvent e : events) {
      long rev = e.getKeyValue().getModRevision();
      assertTrue(rev > previous, "watch events out of order or repeated at revision " + rev);
      previous = rev;
      assertTrue(seen.add(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8)), "key delivered twice");
    }
    Set<String> missing = new HashSet<>(acked.keySet());
    missing.removeAll(seen);
    assertEquals(Collections.emptySet(), missing, "acknowledged writes the watch never delivered");
  }

  private boolean seenAll(List<WatchEvent> watched) {
    Set<String> seen = watched.stream().map(e -> e.getKeyValue().getKey().toString(StandardCharsets.UTF_8))
        .collect(Collectors.toSet());
    return seen.containsAll(acked.keySet());
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
