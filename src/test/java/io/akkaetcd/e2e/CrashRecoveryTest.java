package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * No acknowledged write is lost, and nothing is applied twice, across kill -9 and SIGTERM.
 *
 * <p>Writers put distinct keys, each once, with the client's retries off: so after any number of
 * crashes every key must have version 1 (an entry applied twice would make it 2) and the store
 * revision must be exactly 1 + the number of keys (one revision per applied write). Every write a
 * client saw acknowledged must be there with its value.
 */
class CrashRecoveryTest {
  private static final int WRITERS = 8;

  @Test
  void killMinus9UnderWriteLoadLosesNothingAcknowledged() throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      Map<String, String> acked = new ConcurrentHashMap<>();
      for (int cycle = 0; cycle < 3; cycle++) {
        int before = acked.size();
        writeUntil(server, cycle, acked, () -> server.kill());
        assertTrue(acked.size() > before + 50, "cycle " + cycle + " acknowledged " + (acked.size() - before) + " writes");
        server.start();
        verify(server, acked);
      }
    }
  }

  @Test
  void sigtermStopsCleanlyAndLosesNothing() throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      Map<String, String> acked = new ConcurrentHashMap<>();
      writeUntil(server, 0, acked, () -> server.stop());
      server.start();
      verify(server, acked);
    }
  }

  private static final int TTL_SECONDS = 20;

  @Test
  void leasesKeptAliveSurviveKillMinus9() throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of());
         Client client = Client.builder().endpoints(server.clientUrl()).build()) {
      List<Long> leases = new ArrayList<>();
      List<io.etcd.jetcd.support.CloseableClient> keepAlives = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        // jetcd drops a keep-alive it has had no answer for within the TTL: the TTL must outlast
        // the kill, a cold restart on a loaded machine (10 s seen) and the reconnect backoff.
        long id = client.getLeaseClient().grant(TTL_SECONDS).get(10, TimeUnit.SECONDS).getID();
        leases.add(id);
        client.getKVClient().put(bytes("lease-key-" + i), bytes("v"),
            io.etcd.jetcd.options.PutOption.builder().withLeaseId(id).build()).get(10, TimeUnit.SECONDS);
        keepAlives.add(client.getLeaseClient().keepAlive(id,
            new io.grpc.stub.StreamObserver<io.etcd.jetcd.lease.LeaseKeepAliveResponse>() {
              @Override public void onNext(io.etcd.jetcd.lease.LeaseKeepAliveResponse r) { }
              @Override public void onError(Throwable t) { }
              @Override public void onCompleted() { }
            }));
      }
      server.kill();
      server.start();
      // jetcd gives up a keep-alive stream unanswered for a TTL, and its reconnect backoff after a
      // slow restart can outlast that: keep the leases alive from here on with single keep-alives.
      // Each must find its lease: a restart that lost one or let it lapse while down fails here.
      for (long id : leases) {
        long ttl = client.getLeaseClient().keepAliveOnce(id).get(10, TimeUnit.SECONDS).getTTL();
        assertTrue(ttl > 0, "lease " + Long.toHexString(id) + " gone after the restart\n" + server.log());
      }
      // Well past the TTL: every lease and its key must still be there.
      Instant until = Instant.now().plus(Duration.ofSeconds(TTL_SECONDS + 5));
      while (Instant.now().isBefore(until)) {
        for (long id : leases) {
          long ttl = client.getLeaseClient().timeToLive(id, io.etcd.jetcd.options.LeaseOption.DEFAULT)
              .get(10, TimeUnit.SECONDS).getTTL();
          assertTrue(ttl > 0, "lease " + Long.toHexString(id) + " expired after the restart\n" + server.log());
          if (ttl < TTL_SECONDS / 2) {
            client.getLeaseClient().keepAliveOnce(id).get(10, TimeUnit.SECONDS);
          }
        }
      }
      GetResponse keys = client.getKVClient().get(bytes("lease-key-"), GetOption.builder().isPrefix(true).build())
          .get(10, TimeUnit.SECONDS);
      assertEquals(5, keys.getCount());
      keepAlives.forEach(io.etcd.jetcd.support.CloseableClient::close);
    }
  }

  /** Runs the writers for a while, then runs {@code crash} while they are still writing. */
  private static void writeUntil(ServerProcess server, int cycle, Map<String, String> acked, Runnable crash)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> writers = new ArrayList<>();
    List<Client> clients = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      // No client retries: a put is sent once, so only the server could apply it twice.
      Client client = Client.builder().endpoints(server.clientUrl()).retryMaxAttempts(0).build();
      clients.add(client);
      int writer = w;
      Thread t = new Thread(() -> write(client.getKVClient(), "c" + cycle + "-w" + writer + "-", acked, stop));
      t.start();
      writers.add(t);
    }
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    int target = acked.size() + 300;
    while (acked.size() < target && Instant.now().isBefore(deadline)) {
      Thread.onSpinWait();
      Thread.sleep(10); // pacing the poll, not waiting for a condition: the loop checks it
    }
    crash.run(); // while the writers are still writing
    stop.set(true);
    for (Thread t : writers) {
      t.join(30_000);
    }
    clients.forEach(Client::close);
  }

  private static void write(KV kv, String prefix, Map<String, String> acked, AtomicBoolean stop) {
    for (int n = 0; !stop.get(); n++) {
      String key = prefix + n;
      String value = "value-of-" + key;
      ByteSequence k = bytes(key);
      try {
        kv.put(k, bytes(value)).get(2, TimeUnit.SECONDS);
        acked.put(key, value);
      } catch (Exception e) {
        return; // the server went away: this writer is done for the cycle
      }
    }
  }

  private static void verify(ServerProcess server, Map<String, String> acked) throws Exception {
    try (Client client = Client.builder().endpoints(server.clientUrl()).build()) {
      GetResponse all = client.getKVClient()
          .get(bytes("c"), GetOption.builder().isPrefix(true).build()).get(30, TimeUnit.SECONDS);
      Map<String, KeyValue> present = all.getKvs().stream()
          .collect(Collectors.toMap(kv -> kv.getKey().toString(StandardCharsets.UTF_8), kv -> kv));
      Set<String> lost = acked.keySet().stream().filter(k -> !present.containsKey(k)).collect(Collectors.toSet());
      assertTrue(lost.isEmpty(), lost.size() + " acknowledged writes lost, e.g. " + lost.stream().limit(5).toList()
          + "\n" + server.log());
      for (Map.Entry<String, String> e : acked.entrySet()) {
        assertEquals(e.getValue(), present.get(e.getKey()).getValue().toString(StandardCharsets.UTF_8));
      }
      for (KeyValue kv : present.values()) {
        assertEquals(1, kv.getVersion(), "written once: " + kv.getKey());
      }
      assertEquals(1 + present.size(), all.getHeader().getRevision(), "one revision per applied write, none twice");
      // And the member takes writes again (a key of the same kind, so the invariants keep holding).
      String probe = "c-probe-" + all.getHeader().getRevision();
      client.getKVClient().put(bytes(probe), bytes("ok")).get(10, TimeUnit.SECONDS);
      acked.put(probe, "ok");
    }
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
