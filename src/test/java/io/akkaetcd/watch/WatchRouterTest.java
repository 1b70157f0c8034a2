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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The router against a real store, with a client that does not read: bounded, then complete. */
class WatchRouterTest {
  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static long put(MvccStore s, long index, String key, String value) {
    KvStore.WriteTxn t = s.beginTxn(index);
    t.put(ByteString.copyFromUtf8(key), ByteString.copyFromUtf8(value), 0);
    t.end();
    s.commitBatch();
    return s.currentRevision();
  }

  @Test
  void aSlowReaderHoldsBoundedBuffersAndLaterGetsEveryEventOnceInOrder() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory("router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(4).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = testKit.spawn(WatchRouter.create(store, stream.first(),
          rev -> ResponseHeader.newBuilder().setRevision(rev).build(), java.time.Duration.ofMinutes(10), () -> { }));
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

  @Test
  void aCompactionOvertakingACatchUpCancelsTheWatchWithTheCompactRevision() throws Exception {
    try (MvccStore store = MvccStore.open(Files.createTempDirectory("router"))) {
      Pair<BoundedSourceQueue<WatchResponse>, SinkQueueWithCancel<WatchResponse>> stream =
          Source.<WatchResponse>queue(2).toMat(Sink.queue(1), Keep.both()).run(testKit.system());
      ActorRef<WatchRouter.Command> router = testKit.spawn(WatchRouter.create(store, stream.first(),
          rev -> ResponseHeader.newBuilder().setRevision(rev).build(), java.time.Duration.ofMinutes(10), () -> { }));
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
}
