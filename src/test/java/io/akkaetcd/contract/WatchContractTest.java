package io.akkaetcd.contract;

import static io.akkaetcd.contract.Calls.await;
import static io.akkaetcd.contract.Prefix.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.List;

/**
 * etcd's Watch service, one contract over gRPC and in-process: created first, then events in
 * revision order with no revision split over responses, prev_kv, filters, prefixes, replay from
 * a past revision, a future start revision waited for, a compacted start canceled with
 * compact_revision, and progress notifications. Expected values are etcd v3.5's
 * (mvcc/watchable_store.go, v3rpc/watch.go). Cancel and progress requests are not in the
 * contract: the in-process watch takes only its create request (ending the source cancels it).
 */
class WatchContractTest extends MemberPerClass {
  WatchContractTest() {
    super("--experimental-watch-progress-notify-interval", "200ms");
  }

  WatchProbe watch(Transport t, WatchCreateRequest.Builder request) {
    return WatchProbe.run(t.watch(request.build()), member.materializer());
  }

  static long put(Transport t, ByteString key, String value) {
    return await(t.put(PutRequest.newBuilder().setKey(key).setValue(b(value)).build())).getHeader().getRevision();
  }

  static long delete(Transport t, ByteString key) {
    return await(t.deleteRange(DeleteRangeRequest.newBuilder().setKey(key).build())).getHeader().getRevision();
  }

  static long currentRevision(Transport t) {
    return await(t.range(RangeRequest.newBuilder().setKey(b("any")).build())).getHeader().getRevision();
  }

  static Event put(ByteString key, String value, long created, long modified, long version) {
    return Event.newBuilder().setType(Event.EventType.PUT).setKv(KeyValue.newBuilder().setKey(key).setValue(b(value))
        .setCreateRevision(created).setModRevision(modified).setVersion(version)).build();
  }

  /** A DELETE event as etcd sends it: the key and the deletion's revision, nothing else. */
  static Event deleted(ByteString key, long revision) {
    return Event.newBuilder().setType(Event.EventType.DELETE)
        .setKv(KeyValue.newBuilder().setKey(key).setModRevision(revision)).build();
  }

  /** The created response: first, alone, with the watch's id and the revision it starts after. */
  static WatchResponse created(WatchProbe w) {
    WatchResponse created = w.next();
    assertTrue(created.getCreated(), "the first response says created: " + created);
    assertFalse(created.getCanceled(), created.toString());
    assertEquals(0, created.getEventsCount());
    return created;
  }

  @OverEachTransport
  void aPrefixWatchGetsItsEventsInRevisionOrderEachRevisionInOneResponse(Transport t) {
    Prefix p = Prefix.of("watch", t);
    long before = currentRevision(t);
    try (WatchProbe w = watch(t, WatchCreateRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end()))) {
      WatchResponse created = created(w);
      assertEquals(before, created.getHeader().getRevision(), "created says the revision the watch starts after");
      long r = put(t, p.key("a"), "1");
      put(t, p.end(), "outside the prefix");
      put(t, p.from(), "the prefix itself");
      put(t, p.key("b"), "2");
      long txn = await(t.txn(TxnRequest.newBuilder()
          .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(p.key("c")).setValue(b("3"))))
          .addSuccess(RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder().setKey(p.key("a"))))
          .build())).getHeader().getRevision();
      assertEquals(r + 4, txn);

      List<WatchResponse> responses = w.responsesWithEvents(5);
      assertEquals(List.of(put(p.key("a"), "1", r, r, 1), put(p.from(), "the prefix itself", r + 2, r + 2, 1),
              put(p.key("b"), "2", r + 3, r + 3, 1), put(p.key("c"), "3", r + 4, r + 4, 1), deleted(p.key("a"), r + 4)),
          responses.stream().flatMap(x -> x.getEventsList().stream()).toList());
      // etcd's atomic guarantee: a revision's events are never split over responses (a response
      // may hold several revisions when the watch catches up).
      WatchResponse withTxn = responses.get(responses.size() - 1);
      assertTrue(withTxn.getEventsCount() >= 2, "the txn's revision split: " + responses);
      assertEquals(List.of(put(p.key("c"), "3", r + 4, r + 4, 1), deleted(p.key("a"), r + 4)),
          withTxn.getEventsList().subList(withTxn.getEventsCount() - 2, withTxn.getEventsCount()),
          "a txn's events in one response, in the txn's order");
      for (WatchResponse x : responses) {
        assertEquals(created.getWatchId(), x.getWatchId());
        long newest = x.getEvents(x.getEventsCount() - 1).getKv().getModRevision();
        assertTrue(x.getHeader().getRevision() >= newest, "the header is at least the events' revision: " + x);
      }
    }
  }

  @OverEachTransport
  void prevKvAndFiltersShapeTheEvents(Transport t) {
    ByteString k = Prefix.of("watch-prev", t).key("k");
    try (WatchProbe withPrev = watch(t, WatchCreateRequest.newBuilder().setKey(k).setPrevKv(true));
        WatchProbe deletesOnly = watch(t, WatchCreateRequest.newBuilder().setKey(k)
            .addFilters(WatchCreateRequest.FilterType.NOPUT));
        WatchProbe putsOnly = watch(t, WatchCreateRequest.newBuilder().setKey(k)
            .addFilters(WatchCreateRequest.FilterType.NODELETE))) {
      created(withPrev);
      created(deletesOnly);
      created(putsOnly);
      long r = put(t, k, "1");
      put(t, k, "2");
      delete(t, k);
      KeyValue first = KeyValue.newBuilder().setKey(k).setValue(b("1")).setCreateRevision(r).setModRevision(r)
          .setVersion(1).build();
      KeyValue second = first.toBuilder().setValue(b("2")).setModRevision(r + 1).setVersion(2).build();
      assertEquals(List.of(
              put(k, "1", r, r, 1),
              put(k, "2", r, r + 1, 2).toBuilder().setPrevKv(first).build(),
              deleted(k, r + 2).toBuilder().setPrevKv(second).build()),
          withPrev.events(3), "prev_kv on every event that had one");
      assertEquals(List.of(deleted(k, r + 2)), deletesOnly.events(1));
      assertEquals(List.of(put(k, "1", r, r, 1), put(k, "2", r, r + 1, 2)), putsOnly.events(2));
    }
  }

  @OverEachTransport
  void aWatchFromAPastRevisionReplaysTheHistoryThenFollows(Transport t) {
    Prefix p = Prefix.of("watch-resume", t);
    ByteString k = p.key("k");
    long r = put(t, k, "1");
    put(t, k, "2");
    delete(t, k);
    try (WatchProbe w = watch(t, WatchCreateRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end())
        .setStartRevision(r + 1))) {
      created(w);
      assertEquals(List.of(put(k, "2", r, r + 1, 2), deleted(k, r + 2)), w.events(2));
      put(t, k, "3");
      assertEquals(List.of(put(k, "3", r + 3, r + 3, 1)), w.events(1), "then what is written from now on");
    }
  }

  @OverEachTransport
  void aWatchFromAFutureRevisionWaitsForIt(Transport t) {
    ByteString k = Prefix.of("watch-future", t).key("k");
    long now = currentRevision(t);
    try (WatchProbe w = watch(t, WatchCreateRequest.newBuilder().setKey(k).setStartRevision(now + 2))) {
      assertEquals(now, created(w).getHeader().getRevision());
      put(t, k, "before the start");
      put(t, k, "from the start");
      assertEquals(List.of(put(k, "from the start", now + 1, now + 2, 2)), w.events(1));
    }
  }

  @OverEachTransport
  void aWatchFromACompactedRevisionIsCanceledWithTheCompactRevision(Transport t) {
    ByteString k = Prefix.of("watch-compacted", t).key("k");
    long r = put(t, k, "1");
    put(t, k, "2");
    put(t, k, "3");
    await(t.compact(CompactionRequest.newBuilder().setRevision(r + 1).setPhysical(true).build()));
    try (WatchProbe w = watch(t, WatchCreateRequest.newBuilder().setKey(k).setStartRevision(r))) {
      WatchResponse created = created(w);
      WatchResponse canceled = w.next();
      assertTrue(canceled.getCanceled(), "canceled: " + canceled);
      assertEquals(r + 1, canceled.getCompactRevision());
      assertEquals(created.getWatchId(), canceled.getWatchId());
      assertEquals(0, canceled.getEventsCount());
    }
    try (WatchProbe w = watch(t, WatchCreateRequest.newBuilder().setKey(k).setStartRevision(r + 1))) {
      created(w);
      assertEquals(List.of(put(k, "2", r, r + 1, 2), put(k, "3", r, r + 2, 3)), w.events(2),
          "the compaction revision itself is still history");
    }
  }

  @OverEachTransport
  void progressNotificationsSayHowFarTheWatchHasSeen(Transport t) {
    Prefix p = Prefix.of("watch-progress", t);
    try (WatchProbe w = watch(t, WatchCreateRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end())
        .setProgressNotify(true))) {
      long id = created(w).getWatchId();
      long r = put(t, p.key("k"), "v");
      boolean sawEvent = false;
      WatchResponse progress;
      do {
        progress = w.next();
        if (progress.getEventsCount() > 0) {
          assertEquals(List.of(put(p.key("k"), "v", r, r, 1)), progress.getEventsList());
          sawEvent = true;
        } else {
          assertTrue(progress.getHeader().getRevision() < r || sawEvent,
              "no notification claims a revision before its events came: " + progress);
        }
      } while (progress.getEventsCount() > 0 || progress.getHeader().getRevision() < r);
      assertEquals(r, progress.getHeader().getRevision(), "nothing else was written");
      assertEquals(id, progress.getWatchId());
      assertFalse(progress.getCreated() || progress.getCanceled(), progress.toString());
    }
  }
}
