package io.akkaetcd.it;

import static io.akkaetcd.it.Jetcd.await;
import static io.akkaetcd.it.Jetcd.bs;
import static io.akkaetcd.it.Jetcd.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Writers put distinct new keys while the server is killed (kill -9) or stopped (SIGTERM); after a
 * restart on the same data dir every acknowledged put is there, and the store revision is exactly
 * 1 + the number of keys present: every put made one new key, so no entry was applied twice or
 * lost its revision.
 */
@ExtendWith(LogOnFailure.class)
class CrashRecoveryTest {
  private static final String PREFIX = "/crash/";
  private static final int WRITERS = 8;
  private static final Duration LOAD = Duration.ofMillis(2500);

  @Test
  void killNineMidLoadThreeTimes() throws Exception {
    try (ServerProcess server = Targets.underTest()) {
      server.start();
      Map<String, String> acked = new ConcurrentHashMap<>();
      for (int cycle = 0; cycle < 3; cycle++) {
        Load load = Load.start(server, cycle, acked);
        load.awaitProgress();
        server.kill();
        load.stopAndJoin();
        server.start();
        verify(server, acked, cycle);
      }
    }
  }

  @Test
  void sigtermMidLoad() throws Exception {
    try (ServerProcess server = Targets.underTest()) {
      server.start();
      Map<String, String> acked = new ConcurrentHashMap<>();
      for (int cycle = 0; cycle < 2; cycle++) {
        Load load = Load.start(server, cycle, acked);
        load.awaitProgress();
        server.terminate();
        assertFalse(server.lastStopWasForced(), "the server did not stop on SIGTERM within "
            + ServerProcess.STOP_TIMEOUT);
        load.stopAndJoin();
        server.start();
        verify(server, acked, cycle);
      }
    }
  }

  /** Every acknowledged put is present; revision == 1 + keys; writes continue. */
  private static void verify(ServerProcess server, Map<String, String> acked, int cycle) {
    try (Client client = Jetcd.client(server)) {
      KV kv = client.getKVClient();
      GetResponse all = await(kv.get(bs(PREFIX), GetOption.builder().isPrefix(true).build()));
      Map<String, KeyValue> present = new HashMap<>();
      all.getKvs().forEach(x -> present.put(str(x.getKey()), x));
      List<String> missing = new ArrayList<>();
      List<String> wrong = new ArrayList<>();
      for (Map.Entry<String, String> e : acked.entrySet()) {
        KeyValue x = present.get(e.getKey());
        if (x == null) {
          missing.add(e.getKey());
        } else if (!e.getValue().equals(str(x.getValue()))) {
          wrong.add(e.getKey() + "=" + str(x.getValue()));
        }
      }
      assertTrue(missing.isEmpty(), "cycle " + cycle + ": " + missing.size() + " of "
          + acked.size() + " acknowledged puts lost, e.g. " + missing.subList(0, Math.min(10, missing.size())));
      assertTrue(wrong.isEmpty(), "cycle " + cycle + ": wrong values " + wrong);
      long keys = all.getCount();
      assertEquals(present.size(), keys);
      assertEquals(1 + keys, all.getHeader().getRevision(), "cycle " + cycle
          + ": revision must be 1 + number of keys (" + keys + ", " + acked.size() + " acknowledged)");
      Set<Long> mods = new HashSet<>();
      for (KeyValue x : all.getKvs()) {
        assertEquals(1, x.getVersion(), "each key was put once: " + str(x.getKey()));
        assertEquals(x.getCreateRevision(), x.getModRevision());
        assertTrue(mods.add(x.getModRevision()), "revision used twice: " + x.getModRevision());
        assertTrue(str(x.getKey()).startsWith(PREFIX));
      }
      String after = PREFIX + "after/" + cycle;
      long rev = await(kv.put(bs(after), bs("ok"))).getHeader().getRevision();
      assertEquals(keys + 2, rev, "the first write after restart takes the next revision");
      acked.put(after, "ok");
      assertEquals("ok", str(await(kv.get(bs(after))).getKvs().get(0).getValue()));
    }
  }

  /** {@link #WRITERS} threads, each with its own client, putting distinct keys one at a time. */
  private static final class Load {
    private final List<Thread> threads = new ArrayList<>();
    private final List<Client> clients = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, String> acked;
    private final int ackedBefore;
    private final Instant started = Instant.now();

    private Load(Map<String, String> acked) {
      this.acked = acked;
      this.ackedBefore = acked.size();
    }

    static Load start(ServerProcess server, int cycle, Map<String, String> acked) {
      Load load = new Load(acked);
      for (int w = 0; w < WRITERS; w++) {
        Client client = Jetcd.client(server);
        load.clients.add(client);
        int writer = w;
        Thread t = new Thread(() -> load.write(client.getKVClient(), cycle, writer),
            "crash-writer-" + cycle + "-" + w);
        t.setDaemon(true);
        load.threads.add(t);
        t.start();
      }
      return load;
    }

    private void write(KV kv, int cycle, int writer) {
      for (int n = 0; !stop.get(); n++) {
        String key = PREFIX + cycle + "/" + writer + "/" + n;
        String value = "v" + cycle + "-" + writer + "-" + n + "-" + "x".repeat(n % 50);
        try {
          CompletableFuture<PutResponse> put = kv.put(bs(key), bs(value));
          while (true) {
            try {
              put.get(100, TimeUnit.MILLISECONDS);
              acked.put(key, value);
              break;
            } catch (TimeoutException e) {
              if (stop.get()) {
                return; // unknown outcome, abandoned
              }
            }
          }
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          // The server went away: this put's outcome is unknown and it is never retried under
          // its key; the writer goes on with new keys until it is stopped.
          if (Thread.currentThread().isInterrupted()) {
            return;
          }
        }
      }
    }

    /** Waits until the writers have run a while and made progress, as a condition with a deadline. */
    void awaitProgress() {
      Poll.until(Duration.ofSeconds(60), "writers to make progress", () ->
          acked.size() - ackedBefore >= 100
              && Duration.between(started, Instant.now()).compareTo(LOAD) >= 0);
    }

    /** Stops the writers and closes their clients, so no put of theirs can reach a restarted server. */
    void stopAndJoin() throws InterruptedException {
      stop.set(true);
      clients.forEach(Client::close);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
        if (t.isAlive()) {
          t.interrupt();
          t.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertFalse(t.isAlive(), t.getName() + " did not stop");
      }
    }
  }
}
