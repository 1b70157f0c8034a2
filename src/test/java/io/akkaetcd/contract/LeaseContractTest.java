package io.akkaetcd.contract;

import static io.akkaetcd.contract.Calls.assertFails;
import static io.akkaetcd.contract.Calls.await;
import static io.akkaetcd.contract.Calls.eventually;
import static io.akkaetcd.contract.Prefix.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.stream.javadsl.Sink;
import akka.stream.javadsl.Source;
import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseStatus;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * etcd's Lease service, one contract over gRPC and in-process: grant (ids, the minimum TTL,
 * etcd's refusals), time-to-live with the attached keys, revoke deleting them in one revision,
 * keep-alive streams renewing the TTL, the lease list, and the not-found answers. Expected values
 * are etcd v3.5's (lease/lessor.go, v3rpc/lease.go, etcdserver/v3_server.go); the member has
 * etcd's default election timeout, so the minimum TTL is ceil(1.5 × 1 s) = 2 s.
 */
class LeaseContractTest extends MemberPerClass {
  private static final String NOT_FOUND = "NOT_FOUND";
  private static final String LEASE_NOT_FOUND = "etcdserver: requested lease not found";
  private static final long UNKNOWN = 0x5eed5eedL;

  static LeaseGrantRequest grant(long ttl) {
    return LeaseGrantRequest.newBuilder().setTTL(ttl).build();
  }

  static long put(Transport t, ByteString key, long lease) {
    return await(t.put(PutRequest.newBuilder().setKey(key).setValue(b("v")).setLease(lease).build()))
        .getHeader().getRevision();
  }

  /** A lease of 60 s granted with an id the member picks, and {@code keys} put with it. */
  static long leaseWithKeys(Transport t, ByteString... keys) {
    long id = await(t.leaseGrant(grant(60))).getID();
    for (ByteString key : keys) {
      put(t, key, id);
    }
    return id;
  }

  static Set<Long> leases(Transport t) {
    return Set.copyOf(await(t.leaseLeases()).getLeasesList().stream().map(LeaseStatus::getID).toList());
  }

  @OverEachTransport
  void grantAnswersTheLeaseOrEtcdsRefusal(Transport t) {
    long revision = await(t.range(RangeRequest.newBuilder().setKey(b("any")).build())).getHeader().getRevision();
    LeaseGrantResponse granted = await(t.leaseGrant(grant(60)));
    assertNotEquals(0, granted.getID(), "the member picks an id");
    assertEquals(60, granted.getTTL());
    assertEquals("", granted.getError());
    assertEquals(revision, granted.getHeader().getRevision(), "a grant writes no key");

    long chosen = 0x10000000L + (t.toString().hashCode() & 0xffffff);
    assertEquals(chosen, await(t.leaseGrant(grant(60).toBuilder().setID(chosen).build())).getID());
    assertFails("FAILED_PRECONDITION", "etcdserver: lease already exists",
        t.leaseGrant(grant(30).toBuilder().setID(chosen).build()));
    assertFails("OUT_OF_RANGE", "etcdserver: too large lease TTL", t.leaseGrant(grant(9_000_000_001L)));
    LeaseGrantResponse shortest = await(t.leaseGrant(grant(1)));
    assertEquals(2, shortest.getTTL(), "raised to the minimum TTL");

    assertTrue(leases(t).containsAll(Set.of(granted.getID(), chosen, shortest.getID())), "listed");
    for (long id : List.of(granted.getID(), chosen, shortest.getID())) {
      await(t.leaseRevoke(id));
    }
  }

  @OverEachTransport
  void timeToLiveReportsTheTtlsAndTheAttachedKeys(Transport t) {
    Prefix p = Prefix.of("lease-ttl", t);
    long id = leaseWithKeys(t, p.key("b"), p.key("a"));

    LeaseTimeToLiveResponse ttl = await(t.leaseTimeToLive(id, true));
    assertEquals(id, ttl.getID());
    assertEquals(60, ttl.getGrantedTTL());
    assertTrue(ttl.getTTL() > 0 && ttl.getTTL() <= 60, "remaining " + ttl.getTTL());
    // etcd lists a lease's keys from a map: in no particular order.
    assertEquals(Set.of(p.key("a"), p.key("b")), Set.copyOf(ttl.getKeysList()));
    assertEquals(0, await(t.leaseTimeToLive(id, false)).getKeysCount(), "keys only when asked");

    LeaseTimeToLiveResponse unknown = await(t.leaseTimeToLive(UNKNOWN, true));
    assertEquals(-1, unknown.getTTL(), "no such lease: TTL -1, not an error");
    assertEquals(UNKNOWN, unknown.getID());
    assertEquals(0, unknown.getGrantedTTL());
    assertEquals(0, unknown.getKeysCount());
    await(t.leaseRevoke(id));
  }

  @OverEachTransport
  void revokeDeletesTheAttachedKeysInOneRevision(Transport t) {
    Prefix p = Prefix.of("lease-revoke", t);
    long id = leaseWithKeys(t, p.key("b"), p.key("a"));
    long before = await(t.put(PutRequest.newBuilder().setKey(p.key("c")).setValue(b("kept")).build()))
        .getHeader().getRevision();
    try (WatchProbe w = WatchProbe.run(t.watch(WatchCreateRequest.newBuilder().setKey(p.from())
        .setRangeEnd(p.end()).build()), member.materializer())) {
      assertTrue(w.next().getCreated());
      long revoked = await(t.leaseRevoke(id)).getHeader().getRevision();
      assertEquals(before + 1, revoked, "every key of the lease in one revision");
      assertEquals(List.of(deleted(p.key("a"), revoked), deleted(p.key("b"), revoked)),
          w.responsesWithEvents(2).get(0).getEventsList(), "one response, the keys in order (etcd sorts them)");
    }
    assertEquals(List.of(p.key("c")), await(t.range(RangeRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end())
        .build())).getKvsList().stream().map(KeyValue::getKey).toList());
    assertFalse(leases(t).contains(id), "no longer listed");
    assertEquals(-1, await(t.leaseTimeToLive(id, false)).getTTL());
    assertFails(NOT_FOUND, LEASE_NOT_FOUND, t.leaseRevoke(id));
    assertFails(NOT_FOUND, LEASE_NOT_FOUND,
        t.put(PutRequest.newBuilder().setKey(p.key("d")).setValue(b("v")).setLease(id).build()));
  }

  static Event deleted(ByteString key, long revision) {
    return Event.newBuilder().setType(Event.EventType.DELETE)
        .setKv(KeyValue.newBuilder().setKey(key).setModRevision(revision)).build();
  }

  @OverEachTransport
  void keepAliveRenewsTheTtlOneResponsePerRequest(Transport t) {
    long id = await(t.leaseGrant(grant(30))).getID();
    AtomicLong remaining = new AtomicLong();
    eventually("the lease's TTL runs down", () -> {
      remaining.set(await(t.leaseTimeToLive(id, false)).getTTL());
      return remaining.get() <= 26;
    });
    LeaseKeepAliveRequest request = LeaseKeepAliveRequest.newBuilder().setID(id).build();
    List<LeaseKeepAliveResponse> renewed = await(t.leaseKeepAlive(Source.from(List.of(request, request)))
        .runWith(Sink.seq(), member.materializer()));
    assertEquals(2, renewed.size(), "one response per request, then the stream ends with its requests");
    for (LeaseKeepAliveResponse r : renewed) {
      assertEquals(id, r.getID());
      assertEquals(30, r.getTTL(), "renewed to the granted TTL");
    }
    long after = await(t.leaseTimeToLive(id, false)).getTTL();
    assertTrue(after > remaining.get(), "renewed: " + after + " s left, " + remaining.get() + " s before");

    LeaseKeepAliveResponse unknown = await(t.leaseKeepAlive(Source.single(LeaseKeepAliveRequest.newBuilder()
        .setID(UNKNOWN).build())).runWith(Sink.head(), member.materializer()));
    assertEquals(UNKNOWN, unknown.getID());
    assertEquals(0, unknown.getTTL(), "a lease that is gone is kept alive with TTL 0, not an error");
    await(t.leaseRevoke(id));
  }
}
