package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Watches through jetcd against an embedded member, named after etcd's watch guarantees. */
class JetcdWatchTest {
  private static EmbeddedMember member;
  private static Client client;

  @BeforeAll
  static void start() {
    member = new EmbeddedMember("--experimental-watch-progress-notify-interval", "200ms");
    client = member.client();
  }

  @AfterAll
  static void stop() {
    member.close();
  }

  static ByteSequence b(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static String s(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }

  static void await(String what, BooleanSupplier condition) {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not within 20 s: " + what);
      }
      Thread.onSpinWait();
    }
  }

  /** The next revision: watching from it sees every later write however late the watch is created. */
  static long nextRevision() throws Exception {
    return client.getKVClient().get(b("any")).get().getHeader().getRevision() + 1;
  }

  /**
   * A watch that records every response but its created notice. jetcd 0.7.7 sets a watch's
   * response handler only after it sent the create request and drops what arrives before
   * (jetcd issue 1261); a watch replaying history is answered at once, so on a loaded machine its
   * first responses can be lost in the client. The created notice comes first on the stream: a
   * watch whose notice arrived lost nothing, and one whose notice did not is made again.
   */
  private static final class Recorder {
    final List<WatchResponse> responses;
    final AtomicReference<Throwable> error;
    final Watch.Watcher watcher;

    Recorder(String key, WatchOption option) throws Exception {
      Made made = make(key, option);
      responses = made.responses();
      error = made.error();
      watcher = made.watcher();
    }

    private record Made(List<WatchResponse> responses, AtomicReference<Throwable> error, Watch.Watcher watcher) {}

    private static Made make(String key, WatchOption option) throws Exception {
      for (int attempt = 1; ; attempt++) {
        List<WatchResponse> seen = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        java.util.concurrent.CompletableFuture<Void> created = new java.util.concurrent.CompletableFuture<>();
        Watch.Watcher w = client.getWatchClient().watch(b(key), notifyingCreation(option), Watch.listener(r -> {
          if (r.isCreatedNotify()) {
            created.complete(null);
          } else {
            seen.add(r);
          }
        }, e -> {
          failed.set(e);
          created.complete(null);
        }));
        try {
          created.get(5, TimeUnit.SECONDS);
          return new Made(seen, failed, w);
        } catch (java.util.concurrent.TimeoutException lostInTheClient) {
          w.close();
          if (attempt == 3) {
            throw new AssertionError("no created notice for a watch on " + key + " in 3 attempts");
          }
        }
      }
    }

    private static WatchOption notifyingCreation(WatchOption o) {
      WatchOption.Builder b = WatchOption.builder().withRevision(o.getRevision()).withPrevKV(o.isPrevKV())
          .withProgressNotify(o.isProgressNotify()).withCreateNotify(true).withNoPut(o.isNoPut())
          .withNoDelete(o.isNoDelete()).withRequireLeader(o.withRequireLeader()).isPrefix(o.isPrefix());
      o.getEndKey().ifPresent(b::withRange);
      return b.build();
    }

    List<WatchEvent> events() {
      List<WatchEvent> out = new ArrayList<>();
      responses.forEach(r -> out.addAll(r.getEvents()));
      return out;
    }

    List<String> describe() {
      return events().stream().map(e -> e.getEventType() + " " + s(e.getKeyValue().getKey()) + "="
          + s(e.getKeyValue().getValue()) + "@" + e.getKeyValue().getModRevision()).toList();
    }
  }

  @Test
  void orderedAndAtomic() throws Exception {
    KV kv = client.getKVClient();
    Recorder w = new Recorder("wo/", WatchOption.builder().isPrefix(true).withPrevKV(true)
        .withRevision(nextRevision()).build());
    long r1 = kv.put(b("wo/a"), b("1")).get().getHeader().getRevision() ;
    long r2 = kv.txn().Then(Op.put(b("wo/b"), b("2"), PutOption.DEFAULT), Op.put(b("wo/c"), b("3"), PutOption.DEFAULT),
        Op.delete(b("wo/a"), io.etcd.jetcd.options.DeleteOption.DEFAULT)).commit().get().getHeader().getRevision();
    await("four events", () -> w.events().size() == 4);
    assertEquals(List.of("PUT wo/a=1@" + r1, "PUT wo/b=2@" + r2, "PUT wo/c=3@" + r2, "DELETE wo/a=@" + r2), w.describe());
    long txnRevision = r2;
    assertTrue(w.responses.stream().anyMatch(r -> r.getEvents().stream()
            .filter(e -> e.getKeyValue().getModRevision() == txnRevision).count() == 3),
        "all events of the txn's revision arrive in one response");
    assertEquals("1", s(w.events().get(3).getPrevKV().getValue()), "prev_kv of the delete");
    w.watcher.close();
  }

  @Test
  void filtersAndSingleKeys() throws Exception {
    KV kv = client.getKVClient();
    long from = nextRevision();
    Recorder noPut = new Recorder("wf/", WatchOption.builder().isPrefix(true).withNoPut(true).withRevision(from).build());
    Recorder one = new Recorder("wf/k", WatchOption.builder().withRevision(from).build());
    kv.put(b("wf/k"), b("1")).get();
    kv.put(b("wf/other"), b("1")).get();
    kv.delete(b("wf/k")).get();
    kv.delete(b("wf/other")).get();
    await("the deletes", () -> noPut.events().size() == 2);
    await("the single key's put and delete", () -> one.events().size() == 2);
    assertEquals(List.of("DELETE", "DELETE"), noPut.events().stream().map(e -> e.getEventType().toString()).toList());
    assertTrue(one.describe().stream().allMatch(d -> d.contains("wf/k")));
    noPut.watcher.close();
    one.watcher.close();
  }

  @Test
  void manyWatchesOnOneStreamEachSeeExactlyTheirOwn() throws Exception {
    List<Recorder> recorders = new ArrayList<>();
    WatchOption fromNow = WatchOption.builder().withRevision(nextRevision()).build();
    for (int i = 0; i < 100; i++) {
      recorders.add(new Recorder("wm/" + i, fromNow));
    }
    KV kv = client.getKVClient();
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 100; i++) {
        kv.put(b("wm/" + i), b("v" + round)).get();
      }
    }
    for (int i = 0; i < 100; i++) {
      Recorder r = recorders.get(i);
      String key = "wm/" + i;
      await(key, () -> r.events().size() >= 3);
      assertEquals(List.of("v0", "v1", "v2"), r.events().stream().map(e -> s(e.getKeyValue().getValue())).toList(), key);
      r.watcher.close();
    }
  }

  @Test
  void resumableFromARevisionAndBookmarkedByIt() throws Exception {
    KV kv = client.getKVClient();
    long start = kv.put(b("wr/a"), b("1")).get().getHeader().getRevision();
    kv.put(b("wr/b"), b("2")).get();
    kv.put(b("wr/a"), b("3")).get();
    Recorder replay = new Recorder("wr/", WatchOption.builder().isPrefix(true).withRevision(start + 1).build());
    await("replayed history", () -> replay.events().size() == 2);
    assertEquals(List.of("wr/b=2", "wr/a=3"), replay.events().stream()
        .map(e -> s(e.getKeyValue().getKey()) + "=" + s(e.getKeyValue().getValue())).toList());
    replay.watcher.close();
  }

  @Test
  void progressNotificationsCarryTheCurrentRevision() throws Exception {
    Recorder w = new Recorder("wp/nothing-here", WatchOption.builder().withProgressNotify(true).build());
    long current = nextRevision() - 1;
    await("a progress notification", () -> w.responses.stream().anyMatch(r -> r.isProgressNotify()
        && r.getHeader().getRevision() >= current));
    assertTrue(w.events().isEmpty());
    w.watcher.close();
  }

  @Test
  void aWatchAtACompactedRevisionIsCanceled() throws Exception {
    KV kv = client.getKVClient();
    long first = kv.put(b("wc/k"), b("1")).get().getHeader().getRevision();
    long second = kv.put(b("wc/k"), b("2")).get().getHeader().getRevision();
    kv.compact(second, CompactOption.builder().withCompactPhysical(true).build()).get(10, TimeUnit.SECONDS);
    Recorder old = new Recorder("wc/k", WatchOption.builder().withRevision(first).build());
    await("canceled", () -> old.error.get() != null);
    assertTrue(old.error.get().getMessage().contains("compacted"), old.error.get().toString());
    assertTrue(old.events().isEmpty());
    old.watcher.close();
  }

  @Test
  void watchesResumeAcrossARestartWithoutLossOrDuplicates() throws Exception {
    Recorder w = new Recorder("wx/", WatchOption.builder().isPrefix(true).withRevision(nextRevision()).build());
    for (int i = 0; i < 5; i++) {
      client.getKVClient().put(b("wx/" + i), b("before")).get();
    }
    await("five events", () -> w.events().size() == 5);
    // The watching client stays; the member restarts under it (jetcd reconnects and resumes).
    member.restartServer();
    KV fresh;
    try (Client writer = Client.builder().endpoints(member.url()).build()) {
      fresh = writer.getKVClient();
      for (int i = 5; i < 10; i++) {
        fresh.put(b("wx/" + i), b("after")).get(10, TimeUnit.SECONDS);
      }
    }
    await("ten events after jetcd resumed the watch", () -> w.events().size() >= 10);
    List<String> keys = w.events().stream().map(e -> s(e.getKeyValue().getKey())).toList();
    assertEquals(List.of("wx/0", "wx/1", "wx/2", "wx/3", "wx/4", "wx/5", "wx/6", "wx/7", "wx/8", "wx/9"), keys);
    w.watcher.close();
  }
}
