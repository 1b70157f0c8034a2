package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lock.LockResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lock held through a leader's kill -9 on a three-member cluster (issue #31): clients contend
 * for one lock name, each holder records its fencing token (its key's create revision) and the
 * times it got and gave up the lock, and midway the leader is killed. The history must show no
 * double grant: in the order the grants were seen, tokens strictly increase, and no grant was
 * seen before the previous holder began to unlock while that holder's lease could still live
 * (its grant was sent less than a TTL before). Acquisitions must go on after the failover.
 */
class ClusterLockFencingTest {
  private static final int CLIENTS = 8;
  private static final long LEASE_TTL_SECONDS = 6;
  private static final ByteSequence NAME = ByteSequence.from("fence", StandardCharsets.UTF_8);

  /** One holding of the lock, as its client saw it (System.nanoTime). */
  record Holding(int client, long token, long leaseSentNanos, long grantedNanos, long releasingNanos) {
    /** The earliest moment the lock could legitimately pass on: unlock begun, or the lease's TTL run out. */
    long passableNanos() {
      return Math.min(releasingNanos, leaseSentNanos + TimeUnit.SECONDS.toNanos(LEASE_TTL_SECONDS));
    }
  }

  // A cluster's start (up to 180 s on a loaded machine) plus 150 s of grants overruns the 3 m default.
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void theLockIsNeverGrantedTwiceThroughALeaderKill() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    ConcurrentLinkedQueue<Holding> history = new ConcurrentLinkedQueue<>();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> workers = new ArrayList<>();
    List<Client> clients = new ArrayList<>();
    try {
      String[] endpoints = members.stream().map(ServerProcess::clientUrl).toArray(String[]::new);
      for (int i = 0; i < CLIENTS; i++) {
        Client client = Client.builder().endpoints(endpoints).build();
        clients.add(client);
        int id = i;
        Thread t = new Thread(() -> contend(id, client, running, history), "contender-" + i);
        workers.add(t);
        t.start();
      }
      awaitCount(history, 20, Duration.ofSeconds(60), "grants before the kill");
      ServerProcess leader = ServerProcess.leader(members);
      leader.kill();
      long killedAt = System.nanoTime();
      awaitCount(history, history.size() + 20, Duration.ofSeconds(90), "grants after the kill");
      running.set(false);
      for (Thread t : workers) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      List<Holding> byGrant = history.stream().sorted(Comparator.comparingLong(Holding::grantedNanos)).toList();
      assertTrue(byGrant.stream().filter(h -> h.grantedNanos() > killedAt).count() >= 20,
          "acquisitions after the failover");
      for (int i = 1; i < byGrant.size(); i++) {
        Holding prev = byGrant.get(i - 1);
        Holding next = byGrant.get(i);
        assertTrue(next.token() > prev.token(), "tokens out of grant order: " + prev + " then " + next);
        assertTrue(next.grantedNanos() > prev.passableNanos(),
            "granted while the previous holder held it: " + prev + " then " + next);
      }
    } finally {
      running.set(false);
      clients.forEach(Client::close);
      members.forEach(ServerProcess::close);
    }
  }

  /** Grant a lease, lock, read the token, hold a little, unlock; errors (the failover) just retry. */
  private static void contend(int id, Client client, AtomicBoolean running, ConcurrentLinkedQueue<Holding> history) {
    while (running.get()) {
      try {
        long leaseSent = System.nanoTime();
        long lease = client.getLeaseClient().grant(LEASE_TTL_SECONDS).get(10, TimeUnit.SECONDS).getID();
        LockResponse held = client.getLockClient().lock(NAME, lease).get(30, TimeUnit.SECONDS);
        long granted = System.nanoTime();
        GetResponse key = client.getKVClient().get(held.getKey()).get(10, TimeUnit.SECONDS);
        // Holding for a random few milliseconds is the workload, not a wait for a condition.
        Thread.sleep(ThreadLocalRandom.current().nextInt(5, 50));
        long releasing = System.nanoTime();
        if (!key.getKvs().isEmpty()) {
          history.add(new Holding(id, key.getKvs().get(0).getCreateRevision(), leaseSent, granted, releasing));
        }
        client.getLockClient().unlock(held.getKey()).get(10, TimeUnit.SECONDS);
        client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        // a call cut by the kill or made while there is no leader: contend again
      }
    }
  }

  private static void awaitCount(ConcurrentLinkedQueue<Holding> history, int count, Duration timeout, String what) {
    Instant deadline = Instant.now().plus(timeout);
    while (history.size() < count) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(what + ": only " + history.size() + " of " + count + " within " + timeout);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }
}
