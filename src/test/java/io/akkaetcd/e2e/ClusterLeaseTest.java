package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Leases on a three-member cluster: keep-alives sent to followers reach the leader (only it keeps
 * deadlines), and when the leader is killed with kill -9 while leases are kept alive, none of them
 * expires: the new leader gives each its full TTL, and the clients' keep-alives carry on.
 */
class ClusterLeaseTest {

  @Test
  void leasesKeptAliveThroughFollowersSurviveTheLeadersKill() throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(ServerProcess.Kind.AKKA_ETCD, 3, List.of());
    List<CloseableClient> keepAlives = new ArrayList<>();
    try {
      ServerProcess leader = ServerProcess.leader(members);
      List<ServerProcess> followers = members.stream().filter(m -> m != leader).toList();
      // The client talks to the followers only: every keep-alive is forwarded to the leader.
      try (Client client = Client.builder().endpoints(followers.stream().map(ServerProcess::clientUrl)
          .toArray(String[]::new)).build()) {
        List<Long> leases = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          long id = client.getLeaseClient().grant(4).get(10, TimeUnit.SECONDS).getID();
          leases.add(id);
          client.getKVClient().put(bytes("session-" + i), bytes("alive"),
              PutOption.builder().withLeaseId(id).build()).get(10, TimeUnit.SECONDS);
          keepAlives.add(client.getLeaseClient().keepAlive(id, new StreamObserver<LeaseKeepAliveResponse>() {
            @Override public void onNext(LeaseKeepAliveResponse r) { }
            @Override public void onError(Throwable t) { }
            @Override public void onCompleted() { }
          }));
        }
        // Past twice the TTL before the kill: the leader got the followers' keep-alives.
        assertAllAlive(client, leases, Duration.ofSeconds(9));

        leader.kill();
        // Three times the TTL after the kill: nothing may expire while the keep-alives go on.
        assertAllAlive(client, leases, Duration.ofSeconds(12));
        assertEquals(5, client.getKVClient().get(bytes("session-"), GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS).getCount());

        // Without keep-alives they do expire, through the new leader, and take their keys along.
        keepAlives.forEach(CloseableClient::close);
        keepAlives.clear();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        long left = -1;
        while (Instant.now().isBefore(deadline)) {
          left = client.getKVClient().get(bytes("session-"), GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS).getCount();
          if (left == 0) {
            break;
          }
          Thread.sleep(200); // polling for the expiry, bounded by the deadline
        }
        assertEquals(0, left, "keys of expired leases");
      }
    } finally {
      keepAlives.forEach(CloseableClient::close);
      members.forEach(ServerProcess::close);
    }
  }

  /** For {@code period}, every lease's time-to-live stays positive. */
  private static void assertAllAlive(Client client, List<Long> leases, Duration period) throws Exception {
    Instant until = Instant.now().plus(period);
    while (Instant.now().isBefore(until)) {
      for (long id : leases) {
        long ttl;
        try {
          ttl = client.getLeaseClient().timeToLive(id, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getTTL();
        } catch (java.util.concurrent.ExecutionException e) {
          continue; // no leader for a moment (the election): ask again
        }
        assertTrue(ttl > 0, "lease " + Long.toHexString(id) + " expired (ttl " + ttl + ")");
      }
      Thread.sleep(200); // pacing the checks, not waiting for a condition
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
