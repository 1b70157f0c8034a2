package io.akkaetcd.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.typed.ActorRef;
import akka.japi.Pair;
import akka.stream.BoundedSourceQueue;
import akka.stream.javadsl.Keep;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.SinkQueueWithCancel;
import akka.stream.javadsl.Source;
import com.google.protobuf.ByteString;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The router against a real store, with a client that does not read: bounded, then complete. */
class WatchRouterTest {
  @TempDir Path tmp;

  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static long put(MvccStore s, long index, String key, String value) {
    return put(s, index, key, ByteString.copyFromUtf8(value));
  }

  /** One revision putting {@code key}: returns it. */
  static long put(MvccStore s, long index, String key, ByteString value) {
    KvStore.WriteTxn t = s.beginTxn(index);
    t.put(ByteString.copyFromUtf8(key), value, 0);
    t.end();
    s.commitBatch();
    return s.currentRevision();
  }

  @Test
  void aSlowReaderHoldsBoundedBuffersAndLaterGetsEveryEventOnceInOrder() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(4).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = router(store, stream.first(), 1 << 20);
      router.tell(new WatchRouter.Request(WatchRequest.newBuilder().setCreateRequest(
          WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))
              .setRangeEnd(ByteString.copyFromUtf8("l")).setStartRevision(2)).build()));
      // 50 revisions while nobody reads: the router may hold at most its 4-response buffer.
      for (int i = 0; i < 50; i++) {
        put(store, i + 1, "k" + (i % 7), "v" + i);
        router.tell(new WatchRouter.Committed(store.currentRevision()));
      }
      assertTrue(stream.first().size() <= 4, "buffered " + stream.first().size());

      // Now read everything: created, then every revision exactly once, in order.
      List<Long> revisions = new ArrayList<>();
      boolean created = false;
      while (revisions.size() < 50) {
        Optional<WatchResponse> r = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS);
        WatchResponse response = r.orElseThrow();
        if (response.getCreated()) {
          created = true;
          continue;
        }
        for (Event e : response.getEventsList()) {
          revisions.add(e.getKv().getModRevision());
        }
      }
      assertTrue(created);
      List<Long> expected = new ArrayList<>();
      for (long r = 2; r <= 51; r++) {
        expected.add(r);
      }
      assertEquals(expected, revisions, "every revision once, in order, after catching up from history");
    }
  }

  /** A catch-up longer than one message's share of history is carried on by the router itself. */
  @Test
  void aCatchUpLongerThanOneMessageGetsEveryEventOnceInOrder() throws Exception {
    int revisions = WatchRouter.ROUNDS_PER_MESSAGE * WatchRouter.MAX_REVISIONS_PER_BATCH + 500;
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "catchup"))) {
      for (int i = 0; i < revisions; i++) {
        put(store, i + 1, "k" + (i % 7), "v" + i);
      }
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(revisions + 8).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = router(store, stream.first(), 1 << 20);
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))
          .setRangeEnd(ByteString.copyFromUtf8("l")).setStartRevision(2))));
      router.tell(new WatchRouter.Committed(store.currentRevision()));
      long expected = 2;
      while (expected <= revisions + 1) {
        WatchResponse response = stream.second().pull().toCompletableFuture().get(30, TimeUnit.SECONDS).orElseThrow();
        for (Event e : response.getEventsList()) {
          assertEquals(expected++, e.getKv().getModRevision(), "every revision once, in order");
        }
      }
      router.tell(WatchRouter.StreamEnded.INSTANCE);
    }
  }

  /**
   * etcd's watch figures as one stream moves: its watchers, the one left behind by a reader that
   * does not read (slow), the events waiting in its buffer (pending), those the reader took (sent),
   * and nothing left of the stream once it ended.
   */
  @Test
  void watchStatsFollowWatchersASlowReaderAndTheStreamsEnd() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(2).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      WatchStats stats = new WatchStats();
      WatchStats.Stream share = stats.stream();
      ActorRef<WatchRouter.Command> router = testKit.spawn(WatchRouter.create(store, stream.first(),
          rev -> ResponseHeader.newBuilder().setRevision(rev).build(), 1 << 20, java.time.Duration.ofMinutes(10),
          share, () -> { }));
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))
          .setRangeEnd(ByteString.copyFromUtf8("l")).setWatchId(1))));
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("x"))
          .setWatchId(2))));
      await(2, stats::watchers, "two watchers");
      // Nobody reads. One revision at a time, each its own response, until the buffer and the
      // stream stages after it are full: the k watch is then behind, the x watch saw all (nothing).
      int puts = 0;
      while (stats.slowWatchers() == 0 && puts < 1000) {
        put(store, ++puts, "k" + (puts % 7), "v" + puts);
        router.tell(new WatchRouter.Committed(store.currentRevision()));
        long offered = puts;
        awaitTrue(() -> stats.pendingEvents() == offered || stats.slowWatchers() == 1, "the router synced");
      }
      assertEquals(1, stats.slowWatchers(), "the k watch is behind");
      assertTrue(stats.pendingEvents() > 0 && stats.pendingEvents() < puts, "buffered: " + stats.pendingEvents());
      assertEquals(0, stats.eventsSent());

      int events = 0;
      while (events < puts) {
        WatchResponse r = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
        share.sent(r.getEventsCount(), r.getSerializedSize()); // as the transport does for each response it takes
        events += r.getEventsCount();
      }
      assertEquals(puts, stats.eventsSent());
      await(0, stats::pendingEvents, "every event queued was taken");
      await(0, stats::slowWatchers, "caught up");

      router.tell(new WatchRouter.Request(WatchRequest.newBuilder().setCancelRequest(
          io.akkaetcd.proto.etcdserverpb.WatchCancelRequest.newBuilder().setWatchId(2)).build()));
      await(1, stats::watchers, "one canceled");
      put(store, puts + 1, "k0", "unread");
      router.tell(new WatchRouter.Committed(store.currentRevision()));
      router.tell(WatchRouter.StreamEnded.INSTANCE);
      await(0, stats::watchers, "the ended stream's watchers leave");
      assertEquals(0, stats.slowWatchers());
      assertEquals(0, stats.pendingEvents(), "what its buffer held leaves too");
      share.sent(1, 10); // the transport may still drain the buffer: counted as sent, never pending
      assertEquals(0, stats.pendingEvents());
    }
  }

  static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    assertTrue(condition.getAsBoolean(), what);
  }

  private static void await(long expected, java.util.function.LongSupplier actual, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (actual.getAsLong() != expected && System.nanoTime() < deadline) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    assertEquals(expected, actual.getAsLong(), what);
  }

  @Test
  void aCompactionOvertakingACatchUpCancelsTheWatchWithTheCompactRevision() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(2).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = router(store, stream.first(), 1 << 20);
      router.tell(new WatchRouter.Request(WatchRequest.newBuilder().setCreateRequest(
          WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).setStartRevision(2)).build()));
      for (int i = 0; i < 30; i++) {
        put(store, i + 1, "k", "v" + i);
        router.tell(new WatchRouter.Committed(store.currentRevision()));
      }
      // The reader is behind (the buffer holds 2 responses); history up to 20 goes meanwhile.
      store.compact(20).toCompletableFuture().get(10, TimeUnit.SECONDS);
      router.tell(new WatchRouter.Committed(store.currentRevision()));

      // Stream stages between the router and this reader buffer a few responses, so the watch may
      // have got everything before the compaction came. Either way: no gap, no duplicate, and if
      // it did not get everything, a cancel with the compaction revision.
      List<Long> seen = new ArrayList<>();
      WatchResponse last = null;
      while ((last == null || !last.getCanceled()) && seen.size() < 30) {
        last = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
        last.getEventsList().forEach(e -> seen.add(e.getKv().getModRevision()));
      }
      for (int i = 1; i < seen.size(); i++) {
        assertEquals(seen.get(i - 1) + 1, seen.get(i), "no gap or duplicate: " + seen);
      }
      assertTrue(seen.isEmpty() || seen.get(0) == 2, "from the start revision: " + seen);
      if (seen.size() < 30) {
        assertTrue(last.getCanceled());
        assertEquals(20, last.getCompactRevision(), "canceled with the compaction revision");
        assertTrue(seen.isEmpty() || seen.get(seen.size() - 1) < 20 + 10, "stopped where history was lost: " + seen);
      }
    }
  }

  private static ActorRef<WatchRouter.Command> router(KvStore store, BoundedSourceQueue<WatchResponse> out, int maxResponseBytes) {
    return testKit.spawn(WatchRouter.create(store, out, rev -> ResponseHeader.newBuilder().setRevision(rev).build(),
        maxResponseBytes, java.time.Duration.ofMinutes(10), new WatchStats().stream(), () -> { }));
  }

  private static WatchRequest create(WatchCreateRequest.Builder c) {
    return WatchRequest.newBuilder().setCreateRequest(c).build();
  }

  @Test
  void aBurstOfCreatesLargerThanTheBufferGetsEveryCreatedResponseBeforeAnyEvent() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(4).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = router(store, stream.first(), 1 << 20);
      int watches = 200;
      for (int i = 0; i < watches; i++) {
        router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")).setStartRevision(2))));
      }
      put(store, 1, "k", "v");
      router.tell(new WatchRouter.Committed(store.currentRevision()));

      java.util.Set<Long> created = new java.util.HashSet<>();
      java.util.Set<Long> gotEvent = new java.util.HashSet<>();
      while (gotEvent.size() < watches) {
        WatchResponse r = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
        if (r.getCreated()) {
          assertTrue(created.add(r.getWatchId()), "one created response per watch");
        } else {
          assertTrue(created.contains(r.getWatchId()), "created before events: " + r.getWatchId());
          assertEquals(1, r.getEventsCount());
          assertTrue(gotEvent.add(r.getWatchId()), "one event per watch");
        }
      }
      assertEquals(watches, created.size());
    }
  }

  @Test
  void aWatchThatAsksForFragmentsGetsABigRevisionInFragmentsByEtcdsRule() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(64).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      int limit = 1000;
      ActorRef<WatchRouter.Command> router = router(store, stream.first(), limit);
      // explicit start revisions: the creates may reach the router after the write below
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("a"))
          .setRangeEnd(ByteString.copyFromUtf8("b")).setFragment(true).setWatchId(1).setStartRevision(2))));
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("a"))
          .setRangeEnd(ByteString.copyFromUtf8("b")).setWatchId(2).setStartRevision(2))));
      // one revision with 10 events of about 300 bytes: about 3 KB, three times the limit
      KvStore.WriteTxn t = store.beginTxn(1);
      for (int i = 0; i < 10; i++) {
        t.put(ByteString.copyFromUtf8("a" + i), ByteString.copyFromUtf8("x".repeat(300)), 0);
      }
      t.end();
      store.commitBatch();
      router.tell(new WatchRouter.Committed(store.currentRevision()));

      List<WatchResponse> fragments = new ArrayList<>();
      List<WatchResponse> whole = new ArrayList<>();
      while (whole.isEmpty() || fragments.isEmpty() || fragments.get(fragments.size() - 1).getFragment()) {
        WatchResponse r = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
        if (r.getCreated()) {
          continue;
        }
        (r.getWatchId() == 1 ? fragments : whole).add(r);
      }
      assertEquals(1, whole.size(), "without fragment=true, the revision comes whole");
      assertEquals(10, whole.get(0).getEventsCount());
      assertTrue(fragments.size() >= 3, "split: " + fragments.size());
      List<Event> joined = new ArrayList<>();
      for (int i = 0; i < fragments.size(); i++) {
        WatchResponse f = fragments.get(i);
        assertEquals(i < fragments.size() - 1, f.getFragment(), "fragment=true on all but the last");
        assertTrue(f.getSerializedSize() < limit || f.getEventsCount() == 1, "each fragment under the limit");
        joined.addAll(f.getEventsList());
      }
      assertEquals(whole.get(0).getEventsList(), joined, "the fragments join into the whole revision");
    }
  }

  /**
   * The applier commits whenever it likes, also between two reads of the store's revision by the
   * router: here a write lands right after each read the progress notifier makes (found on the
   * stack: the race is that narrow in real runs). A progress notification must still
   * carry the revision the watch was found caught up with, never a later one whose events it has
   * not been sent (a client resuming from the notification would skip them).
   */
  @Test
  void aProgressNotificationNeverClaimsARevisionWhoseEventsWereNotSent() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      java.util.concurrent.atomic.AtomicBoolean racing = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicLong index = new java.util.concurrent.atomic.AtomicLong();
      KvStore racy = (KvStore) java.lang.reflect.Proxy.newProxyInstance(KvStore.class.getClassLoader(),
          new Class<?>[] {KvStore.class}, (proxy, method, args) -> {
            Object result = method.invoke(store, args);
            if (method.getName().equals("currentRevision") && racing.get() && StackWalker.getInstance()
                .walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("notifyProgress")))) {
              put(store, index.incrementAndGet(), "k", "v" + index.get()); // only this thread writes now
            }
            return result;
          });
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(1024).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = testKit.spawn(WatchRouter.create(racy, stream.first(),
          rev -> ResponseHeader.newBuilder().setRevision(rev).build(), 1 << 20, java.time.Duration.ofMillis(5), new WatchStats().stream(),
          () -> { }));
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))
          .setProgressNotify(true).setStartRevision(1))));
      assertTrue(stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow().getCreated());
      racing.set(true);

      long delivered = 1; // every event up to here was sent
      int progress = 0;
      while (progress < 20) {
        WatchResponse r = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
        if (r.getEventsCount() > 0) {
          delivered = r.getEvents(r.getEventsCount() - 1).getKv().getModRevision();
        } else {
          progress++;
          assertTrue(r.getHeader().getRevision() <= delivered, "a progress notification at "
              + r.getHeader().getRevision() + " when events were sent up to " + delivered + " only");
        }
      }
      racing.set(false);
      testKit.stop(router);
    }
  }

  /**
   * A progress request on a stream without watches (the client's create was refused, say) gets
   * no answer, as etcd's progressIfSync gives none: jetcd 0.7.7 would resume from its revision and
   * skip the events before it. The same request once the stream has a caught-up watch is answered.
   */
  @Test
  void aProgressRequestOnAStreamWithoutWatchesIsNotAnswered() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "router"))) {
      put(store, 1, "k", "v1");
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(16).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = router(store, stream.first(), 1 << 20);
      WatchRequest progress = WatchRequest.newBuilder()
          .setProgressRequest(io.akkaetcd.proto.etcdserverpb.WatchProgressRequest.getDefaultInstance()).build();
      router.tell(new WatchRouter.Request(progress));
      router.tell(new WatchRouter.Request(create(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8("k")))));
      router.tell(new WatchRouter.Request(progress));
      // the router answers in the order it was asked: had the first request been answered, its
      // answer would come before the created one
      WatchResponse first = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
      assertTrue(first.getCreated(), "expected the created answer first, got " + first);
      WatchResponse second = stream.second().pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
      assertTrue(!second.getCreated() && second.getEventsCount() == 0 && second.getWatchId() == -1, second.toString());
      assertEquals(store.currentRevision(), second.getHeader().getRevision());
      testKit.stop(router);
    }
  }
}
