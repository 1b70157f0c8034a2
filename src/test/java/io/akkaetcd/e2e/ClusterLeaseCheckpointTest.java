package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.LeaseOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Lease checkpoints on a three-member cluster (etcd's --experimental-enable-lease-checkpoint):
 * with the flag, the leader checkpoints a 120 s lease's remaining TTL through Raft, and after the
 * leader's kill -9 the new leader resumes that remaining TTL; without it, the new leader gives the
 * lease its whole TTL again (etcd 3.4's default). With --experimental-enable-lease-checkpoint-persist
 * the remaining TTL also survives a restart of every member; without it a restart refreshes the
 * lease (etcd 3.5). The checkpoint interval is cut from etcd's 5 min to 1 s
 * (akka-etcd.lease-checkpoint-interval) so the test runs in seconds.
 */
class ClusterLeaseCheckpointTest {
  private static final long TTL = 120;
  /** How far the lease runs down before the leader is killed. */
  private static final long RUN_DOWN_TO = 108;

  @Test
  void withCheckpointsANewLeaderResumesTheRemainingTtl() throws Exception {
    long after = ttlAfterLeaderKill(List.of("--experimental-enable-lease-checkpoint",
        "-J-Dakka-etcd.lease-checkpoint-interval=1s"));
    // At most the last checkpoint (<= RUN_DOWN_TO + 1 s) plus the election timeout (1 s): not 120.
    assertTrue(after <= RUN_DOWN_TO + 2 && after > 60, "TTL after the leader change: " + after);
  }

  @Test
  void withoutCheckpointsANewLeaderRefreshesTheLease() throws Exception {
    long after = ttlAfterLeaderKill(List.of("-J-Dakka-etcd.lease-checkpoint-interval=1s"));
    assertTrue(after >= TTL - 5, "TTL after the leader change: " + after);
  }

  @Test
  void withPersistedCheckpointsALeaseKeepsItsRemainingTtlAcrossAFullRestart() throws Exception {
    long after = ttlAfterFullRestart(List.of("--experimental-enable-lease-checkpoint",
        "--experimental-enable-lease-checkpoint-persist", "-J-Dakka-etcd.lease-checkpoint-interval=1s"));
    // The persisted checkpoint (<= RUN_DOWN_TO + 1 s) plus the election timeout: not 120.
    assertTrue(after <= RUN_DOWN_TO + 2 && after > 60, "TTL after the restart: " + after);
  }

  @Test
  void withCheckpointsNotPersistedARestartRefreshesTheLease() throws Exception {
    long after = ttlAfterFullRestart(List.of("--experimental-enable-lease-checkpoint",
        "-J-Dakka-etcd.lease-checkpoint-interval=1s"));
    assertTrue(after >= TTL - 5, "TTL after the restart: " + after);
  }

  /** Grants a 120 s lease, lets it run down, kills every member and starts them again: the lease's TTL then. */
  private static long ttlAfterFullRestart(List<String> flags) throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, flags);
    try {
      long id;
      String[] endpoints = members.stream().map(ServerProcess::clientUrl).toArray(String[]::new);
      try (Client client = Client.builder().endpoints(endpoints).build()) {
        id = client.getLeaseClient().grant(TTL).get(10, TimeUnit.SECONDS).getID();
        awaitTtl(client, id, ttl -> ttl <= RUN_DOWN_TO, Duration.ofSeconds(40));
        awaitTtl(client, id, ttl -> ttl <= RUN_DOWN_TO - 2, Duration.ofSeconds(20));
      }
      members.forEach(ServerProcess::kill);
      // Each start waits for health, which needs a quorum: start them together.
      List<CompletableFuture<Void>> starts = members.stream()
          .map(m -> CompletableFuture.runAsync(m::start, runnable -> new Thread(runnable).start())).toList();
      CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
      try (Client client = Client.builder().endpoints(endpoints).build()) {
        return awaitTtl(client, id, ttl -> ttl > 0, Duration.ofSeconds(30));
      }
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  /** Grants a 120 s lease, lets it run down to {@link #RUN_DOWN_TO}, kills the leader: the new leader's TTL. */
  private static long ttlAfterLeaderKill(List<String> flags) throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, flags);
    try {
      ServerProcess leader = ServerProcess.leader(members);
      List<ServerProcess> followers = members.stream().filter(m -> m != leader).toList();
      try (Client client = Client.builder().endpoints(followers.stream().map(ServerProcess::clientUrl)
          .toArray(String[]::new)).build()) {
        long id = client.getLeaseClient().grant(TTL).get(10, TimeUnit.SECONDS).getID();
        awaitTtl(client, id, ttl -> ttl <= RUN_DOWN_TO, Duration.ofSeconds(40));
        // Two checkpoint intervals more, so the latest checkpoint is applied on every member.
        long before = awaitTtl(client, id, ttl -> ttl <= RUN_DOWN_TO - 2, Duration.ofSeconds(20));
        leader.kill();
        ServerProcess.leader(followers);
        long after = awaitTtl(client, id, ttl -> ttl > 0, Duration.ofSeconds(30));
        assertTrue(before > 0, "the lease lived until the kill");
        return after;
      }
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  /** Polls the lease's time-to-live (retrying while there is no leader) until it meets {@code until}. */
  private static long awaitTtl(Client client, long id, java.util.function.LongPredicate until, Duration timeout)
      throws Exception {
    Instant deadline = Instant.now().plus(timeout);
    long ttl = Long.MIN_VALUE;
    while (Instant.now().isBefore(deadline)) {
      try {
        ttl = client.getLeaseClient().timeToLive(id, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getTTL();
        if (until.test(ttl)) {
          return ttl;
        }
      } catch (ExecutionException e) {
        // no leader for a moment (the election): ask again
      }
      Thread.sleep(200); // pacing the polls, bounded by the deadline
    }
    throw new AssertionError("lease TTL " + ttl + " did not reach the expected value within " + timeout);
  }
}
