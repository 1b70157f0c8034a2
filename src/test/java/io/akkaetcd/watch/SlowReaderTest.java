package io.akkaetcd.watch;

import static io.akkaetcd.watch.WatchRouterTest.awaitTrue;
import static io.akkaetcd.watch.WatchRouterTest.put;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33 item 4: a reader that stops reading costs the member a bounded buffer and nothing
 * else; other streams get every event and their progress notifications, a watch catching up from
 * history does not hold back the live watches of its own stream, and the stalled reader, once it
 * reads again, gets every event from history in order.
 */
class SlowReaderTest {
  @TempDir Path tmp;

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final int VALUE_BYTES = 64 << 10;

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** A stream as WatchService builds it: the buffer, then the transport reporting what it took. */
  private record Stream(ActorRef<WatchRouter.Command> router, BoundedSourceQueue<WatchResponse> buffer,
      SinkQueueWithCancel<WatchResponse> reader, WatchStats.Stream stats) {
    WatchResponse next() throws Exception {
      return reader.pull().toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow();
    }
  }

  private static Stream stream(KvStore store, int capacity, Duration progressInterval) {
    WatchStats.Stream stats = new WatchStats().stream();
    Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> q = Source.<WatchResponse>queue(capacity)
        .map(r -> {
          stats.sent(r.getEventsCount(), r.getSerializedSize());
          return r;
        })
        .toMat(Sink.queue(1), Keep.both()).run(testKit.system());
    ActorRef<WatchRouter.Command> router = testKit.spawn(WatchRouter.create(store, q.first(),
        rev -> ResponseHeader.newBuilder().setRevision(rev).build(), 1 << 20, progressInterval, stats, () -> { }));
    return new Stream(router, q.first(), q.second(), stats);
  }

  private static WatchRequest create(String key, String end, long start, long id, boolean progress) {
    return WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder().setKey(ByteString.copyFromUtf8(key))
        .setRangeEnd(ByteString.copyFromUtf8(end)).setStartRevision(start).setWatchId(id).setProgressNotify(progress)).build();
  }

  @Test
  void aStalledStreamStaysUnderItsByteBoundWhileAnotherGetsEveryEventAndItsProgress() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "stalled"))) {
      Stream stalled = stream(store, 128, Duration.ofMinutes(10));
      Stream reading = stream(store, 128, Duration.ofMillis(20));
      stalled.router().tell(new WatchRouter.Request(create("k", "l", 2, 1, false)));
      reading.router().tell(new WatchRouter.Request(create("k", "l", 2, 1, true)));
      assertTrue(reading.next().getCreated());

      // 200 revisions of 64 KiB: 12.5 MiB, three times the stalled stream's byte bound and more
      // than its 128 responses could otherwise hold
      int puts = 200;
      List<Long> seen = new ArrayList<>();
      for (int i = 0; i < puts; i++) {
        put(store, i + 1, "k" + (i % 7), ByteString.copyFrom(new byte[VALUE_BYTES]));
        WatchRouter.Committed c = new WatchRouter.Committed(store.currentRevision());
        stalled.router().tell(c);
        reading.router().tell(c);
      }
      long last = store.currentRevision();
      WatchResponse r;
      int progress = 0;
      while (progress == 0) {
        r = reading.next();
        r.getEventsList().forEach(e -> seen.add(e.getKv().getModRevision()));
        if (r.getEventsCount() == 0 && !r.getCreated() && r.getHeader().getRevision() == last) {
          progress++;
        }
      }
      assertEquals(revisions(2, last), seen, "the reading stream: every event once, in order, then its progress");

      awaitTrue(() -> stalled.stats().pendingBytes() >= WatchRouter.MAX_BUFFERED_BYTES, "the stalled buffer filled");
      long bound = WatchRouter.MAX_BUFFERED_BYTES + WatchRouter.MAX_RESPONSE_BYTES + 2L * VALUE_BYTES;
      assertTrue(stalled.stats().pendingBytes() <= bound, "buffered " + stalled.stats().pendingBytes());
      assertTrue(stalled.buffer().size() < 128, "the byte bound, not the count, held it: " + stalled.buffer().size());

      // reading again: every event from history, in order, in responses of bounded size
      List<Long> caughtUp = new ArrayList<>();
      assertTrue(stalled.next().getCreated());
      while (caughtUp.size() < puts) {
        r = stalled.next();
        assertTrue(r.getSerializedSize() <= WatchRouter.MAX_RESPONSE_BYTES + 2L * VALUE_BYTES, "a response of " + r.getSerializedSize());
        r.getEventsList().forEach(e -> caughtUp.add(e.getKv().getModRevision()));
      }
      assertEquals(revisions(2, last), caughtUp, "the stalled stream, resumed: every event once, in order");
      testKit.stop(stalled.router());
      testKit.stop(reading.router());
    }
  }

  /**
   * A watch that starts far back shares its stream with a live one: the live watch's new event
   * goes out before the catch-up has ended (it used to wait behind the whole catch-up).
   */
  @Test
  void aCatchUpDoesNotHoldBackTheLiveWatchesOfItsStream() throws Exception {
    int history = 8 * WatchRouter.MAX_REVISIONS_PER_BATCH;
    try (MvccStore store = MvccStore.open(Files.createTempDirectory(tmp, "catchup"))) {
      ByteString v = ByteString.copyFromUtf8("v");
      for (int i = 0; i < history; i++) {
        put(store, i + 1, "old" + (i % 7), v);
      }
      long liveStart = store.currentRevision() + 1;
      // a buffer of 2: the catch-up cannot finish before the live write below, nobody reads yet
      Stream s = stream(store, 2, Duration.ofMinutes(10));
      s.router().tell(new WatchRouter.Request(create("old", "old\u00ff", 2, 1, false)));
      s.router().tell(new WatchRouter.Request(create("live", "", liveStart, 2, false)));
      s.router().tell(new WatchRouter.Committed(store.currentRevision()));
      long liveRevision = put(store, history + 1, "live", v);
      s.router().tell(new WatchRouter.Committed(liveRevision));

      List<Long> old = new ArrayList<>();
      boolean liveSeen = false;
      int created = 0;
      while (old.size() < history || !liveSeen) {
        WatchResponse r = s.next();
        if (r.getCreated()) {
          created++;
        } else if (r.getWatchId() == 2) {
          assertEquals(List.of(liveRevision), r.getEventsList().stream().map(e -> e.getKv().getModRevision()).toList());
          assertTrue(old.size() < history, "the live event came only after the whole catch-up");
          liveSeen = true;
        } else {
          r.getEventsList().forEach(e -> old.add(e.getKv().getModRevision()));
        }
      }
      assertEquals(2, created);
      assertEquals(revisions(2, history + 1), old, "the catch-up: every event once, in order");
      testKit.stop(s.router());
    }
  }

  private static List<Long> revisions(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long r = from; r <= to; r++) {
      out.add(r);
    }
    return out;
  }
}
