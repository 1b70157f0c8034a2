package io.akkaetcd.it;

import static io.akkaetcd.it.Jetcd.await;
import static io.akkaetcd.it.Jetcd.bytes;
import static io.akkaetcd.it.Jetcd.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Durability under load: 8 jetcd writers put distinct keys while the server is killed with
 * SIGKILL (three kill/restart cycles on one data dir) or stopped with SIGTERM. After each restart
 * every acknowledged put must be there with its value, nothing may be applied twice (every key
 * at version 1, store revision = 1 + number of keys, as each put creates one key), no key may
 * appear that was never sent, and writing must go on. Target: akka-etcd, or real etcd with
 * {@code -Dit.candidate=etcd}.
 */
class CrashRecoveryTest {
  private static final int WRITERS = 8;
  private static final Duration LOAD_BEFORE_STOP = Duration.ofMillis(2500);
  private static final Duration PUT_TIMEOUT = Duration.ofSeconds(5);

  @Test
  void everyAcknowledgedPutSurvivesThreeKillNineRestarts() {
    try (ServerUnderTest server = ServerUnderTest.candidate().start(List.of())) {
      Map<String, String> acknowledged = new ConcurrentHashMap<>();
      Map<String, String> sent = new ConcurrentHashMap<>();
      for (int cycle = 1; cycle <= 3; cycle++) {
        loadThenStop(server, "c" + cycle, acknowledged, sent, ServerUnderTest::kill);
        server.restart();
        verify(server, acknowledged, sent, "after kill -9 #" + cycle);
      }
      writingContinues(server, acknowledged, sent);
    }
  }

  @Test
  void everyAcknowledgedPutSurvivesSigterm() {
    try (ServerUnderTest server = ServerUnderTest.candidate().start(List.of())) {
      Map<String, String> acknowledged = new ConcurrentHashMap<>();
      Map<String, String> sent = new ConcurrentHashMap<>();
      loadThenStop(server, "t1", acknowledged, sent, s -> {
        int exit = s.stop();
        assertTrue(exit == 0 || exit == 143, s.label() + " exit code after SIGTERM: " + exit);
      });
      server.restart();
      verify(server, acknowledged, sent, "after SIGTERM");
      writingContinues(server, acknowledged, sent);
    }
  }

  /**
   * Runs the writers until at least one put per writer is acknowledged and
   * {@link #LOAD_BEFORE_STOP} has passed, then stops the server under load and the writers.
   */
  private void loadThenStop(ServerUnderTest server, String round, Map<String, String> acknowledged,
      Map<String, String> sent, Consumer<ServerUnderTest> stop) {
    AtomicBoolean halt = new AtomicBoolean();
    Map<Integer, Integer> acksPerWriter = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    List<Client> clients = new ArrayList<>();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    try {
      for (int w = 0; w < WRITERS; w++) {
        Client client = Jetcd.client(server);
        clients.add(client);
        int writer = w;
        writers.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; !halt.get(); i++) {
            String key = "crash/" + round + "/w" + writer + "/" + i;
            String value = "value-" + key;
            sent.put(key, value);
            try {
              client.getKVClient().put(bytes(key), bytes(value))
                  .get(PUT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
              if (halt.get()) {
                return; // the server went away under us: expected
              }
              throw new AssertionError(key + " failed before the server was stopped", e);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
            acknowledged.put(key, value);
            acksPerWriter.merge(writer, 1, Integer::sum);
          }
        }, pool));
      }
      CompletableFuture<Void> all = CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new));
      long start = System.nanoTime();
      Poll.until("every writer's first acknowledged put", Duration.ofSeconds(30),
          () -> all.isDone() || acksPerWriter.size() == WRITERS);
      long left = LOAD_BEFORE_STOP.toNanos() - (System.nanoTime() - start);
      try {
        all.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
        throw new AssertionError("writers ended before the server was stopped");
      } catch (TimeoutException underLoad) {
        // the load is running: stop the server now
      } catch (ExecutionException e) {
        throw new AssertionError("a writer failed under load", e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
      int before = acknowledged.size();
      halt.set(true);
      stop.accept(server);
      await(all);
      System.out.printf("%s: %s stopped under load; %d puts acknowledged before the stop,"
          + " %d in all%n", round, server.label(), before, acknowledged.size());
    } finally {
      halt.set(true);
      clients.forEach(Client::close);
      pool.shutdownNow();
    }
  }

  private void verify(ServerUnderTest server, Map<String, String> acknowledged,
      Map<String, String> sent, String when) {
    try (Client client = Jetcd.client(server)) {
      GetResponse all = await(client.getKVClient().get(bytes("crash/"),
          GetOption.builder().isPrefix(true).build()));
      Map<String, KeyValue> stored = new java.util.HashMap<>();
      for (KeyValue kv : all.getKvs()) {
        stored.put(text(kv.getKey()), kv);
      }
      List<String> problems = new ArrayList<>();
      for (Map.Entry<String, String> ack : acknowledged.entrySet()) {
        KeyValue kv = stored.get(ack.getKey());
        if (kv == null) {
          problems.add("acknowledged put lost: " + ack.getKey());
        } else if (!ack.getValue().equals(text(kv.getValue()))) {
          problems.add("wrong value for " + ack.getKey() + ": " + text(kv.getValue()));
        }
      }
      for (KeyValue kv : stored.values()) {
        String key = text(kv.getKey());
        if (!text(kv.getValue()).equals(sent.get(key))) {
          problems.add("never sent: " + key + " = " + text(kv.getValue()));
        }
        if (kv.getVersion() != 1) {
          problems.add("applied " + kv.getVersion() + " times: " + key);
        }
      }
      long total = await(client.getKVClient().get(bytes("\0"),
          GetOption.builder().withRange(bytes("\0")).withCountOnly(true).build())).getCount();
      long revision = all.getHeader().getRevision();
      assertTrue(problems.isEmpty(), when + ": " + problems.size() + " problems, first: "
          + problems.subList(0, Math.min(20, problems.size())));
      assertEquals(stored.size(), total, when + ": only crash/ keys are written");
      assertEquals(1 + total, revision,
          when + ": store revision = 1 + distinct puts applied (" + total + " keys)");
      System.out.printf("%s: %d keys, revision %d, %d acknowledged%n", when, total, revision,
          acknowledged.size());
    }
  }

  private void writingContinues(ServerUnderTest server, Map<String, String> acknowledged,
      Map<String, String> sent) {
    try (Client client = Jetcd.client(server)) {
      long before = await(client.getKVClient().get(bytes("crash/"))).getHeader().getRevision();
      for (int i = 0; i < 5; i++) {
        String key = "crash/after/" + i;
        sent.put(key, "after");
        long rev = await(client.getKVClient().put(bytes(key), bytes("after")))
            .getHeader().getRevision();
        assertEquals(before + 1 + i, rev, "revisions go on from where they were");
        acknowledged.put(key, "after");
      }
    }
    verify(server, acknowledged, sent, "after the last restart's writes");
  }
}
