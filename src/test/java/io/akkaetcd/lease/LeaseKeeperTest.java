package io.akkaetcd.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseKeeperTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void deadlinesRenewAndExpireOnTheGivenClock() {
    AtomicLong now = new AtomicLong();
    LeaseKeeper k = new LeaseKeeper(now::get);
    k.granted(1, 10);
    k.granted(2, 5);
    now.set(6 * SECOND);
    assertEquals(List.of(2L), k.expired(10));
    assertEquals(4, k.remainingSeconds(1));
    assertEquals(10, k.renew(1));
    now.set(8 * SECOND);
    assertTrue(k.expired(10).isEmpty(), "lease 1 renewed at 6 s; lease 2 held back for its retry");
    now.set(15 * SECOND);
    assertEquals(List.of(2L), k.expired(10), "lease 2 again once the retry is due (its revoke got lost)");
    assertEquals(0, k.renew(3), "unknown lease");
    assertEquals(-1, k.remainingSeconds(3));
    k.revoked(1);
    assertEquals(-1, k.remainingSeconds(1));
  }

  @Test
  void aNewLeaderGivesEveryLeaseItsFullTtl() {
    AtomicLong now = new AtomicLong();
    LeaseKeeper k = new LeaseKeeper(now::get);
    k.granted(1, 10);
    now.set(9 * SECOND);
    k.promote(Map.of(1L, 10L));
    now.set(18 * SECOND);
    assertTrue(k.expired(10).isEmpty());
    assertEquals(1, k.remainingSeconds(1));
  }

  @Test
  void aPromotionExtendsEveryTtlByTheElectionTimeoutAsEtcdDoes() {
    AtomicLong now = new AtomicLong();
    LeaseKeeper k = new LeaseKeeper(now::get, java.time.Duration.ofSeconds(1));
    k.granted(1, 60);
    now.set(1);
    assertEquals(59, k.remainingSeconds(1), "a grant: the TTL from now, rounded down, no extension");
    now.set(30 * SECOND);
    k.promote(Map.of(1L, 60L));
    now.set(30 * SECOND + 1);
    // etcd's Promote(electionTimeout): now + 1 s + 60 s, which time-to-live shows as 60 s
    assertEquals(60, k.remainingSeconds(1));
    assertEquals(60, k.renew(1));
    now.set(30 * SECOND + 2);
    assertEquals(59, k.remainingSeconds(1), "a keep-alive: the TTL from now, no extension");
  }

  @Test
  void lessorFollowsAttachmentsFromWriteEvents() {
    Lessor l = new Lessor(2);
    ByteString key = ByteString.copyFromUtf8("k");
    l.observe(List.of());
    assertTrue(l.get(7).isEmpty());
    // Attachments to unknown leases are ignored; known ones follow puts, re-puts and deletes.
    var store = new io.akkaetcd.apply.InMemoryKvStoreAccess().create();
    l.grant(store, io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest.newBuilder().setID(7).setTTL(1).build());
    assertEquals(2, l.get(7).orElseThrow().ttl(), "raised to the minimum");
    KeyValue withLease = KeyValue.newBuilder().setKey(key).setLease(7).build();
    l.observe(List.of(Event.newBuilder().setType(Event.EventType.PUT).setKv(withLease).build()));
    assertEquals(1, l.get(7).orElseThrow().keys().size());
    l.observe(List.of(Event.newBuilder().setType(Event.EventType.PUT)
        .setKv(KeyValue.newBuilder().setKey(key)).setPrevKv(withLease).build()));
    assertTrue(l.get(7).orElseThrow().keys().isEmpty(), "a put without the lease detaches");
  }

  @Test
  void checkpointsReportTheRemainingTtlAndANewLeaderResumesIt() {
    AtomicLong now = new AtomicLong();
    LeaseKeeper k = new LeaseKeeper(now::get, java.time.Duration.ofSeconds(1));
    k.checkpointEvery(java.time.Duration.ofSeconds(10));
    k.granted(1, 120);
    k.granted(2, 8); // not more than an interval left: never checkpointed (etcd)
    now.set(9 * SECOND);
    assertTrue(k.dueCheckpoints(10, id -> 0).isEmpty(), "nothing due before the interval");
    now.set(10 * SECOND + 1);
    List<long[]> due = k.dueCheckpoints(10, id -> 0);
    assertEquals(1, due.size());
    assertEquals(1, due.get(0)[0]);
    assertEquals(110, due.get(0)[1], "the remaining TTL, rounded up");
    assertTrue(k.dueCheckpoints(10, id -> 0).isEmpty(), "the next one is an interval later");

    // A keep-alive makes the checkpoint due at once; with a full TTL left it clears the applied one.
    assertEquals(120, k.renew(1));
    assertTrue(k.dueCheckpoints(10, id -> 0).isEmpty(), "nothing applied to clear");
    k.renew(1);
    List<long[]> cleared = k.dueCheckpoints(10, id -> 110);
    assertEquals(0, cleared.get(0)[1]);

    // A promotion gives a checkpointed lease its remaining TTL (plus the election timeout).
    now.set(50 * SECOND);
    k.promote(Map.of(1L, 120L, 2L, 8L), Map.of(1L, 30L));
    assertEquals(31, k.remainingSeconds(1));
    assertEquals(9, k.remainingSeconds(2));
  }
}
