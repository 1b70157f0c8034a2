package io.akkaetcd.apply;

import io.akkaetcd.alarm.Alarms;
import io.akkaetcd.alarm.Quota;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.lease.LeaseKeeper;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.proto.etcdserverpb.EmptyResponse;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;

/**
 * Applies a decoded raft request (while a CORRUPT or NOSPACE alarm is raised, refusing what etcd's
 * corrupt and capped appliers refuse: {@link Alarms#refusedWhileCorrupt}, {@link Quota#refusedWhileNoSpace}): alarm requests with {@link Alarms}, KV requests with the {@link KvApplier}, lease grants and revokes
 * with the {@link Lessor}, Auth entries and the write checks with the {@link AuthApplier}, members' published client URLs with {@link MemberAttributes}. Returns the response; for a compaction with physical=true, a stage that
 * completes once the compaction is durable.
 * A request of a kind not served yet changes nothing and answers nothing.
 */
public final class RequestDispatch implements ApplierActor.RequestApplier {
  private final KvApplier kv;
  private final Lessor lessor;
  private final LeaseKeeper keeper;
  private final MemberAttributes attributes;
  private final Alarms alarms;
  private final java.util.function.LongConsumer termEntryApplied;
  private final AuthApplier auth;

  /** @param termEntryApplied told the term of every empty entry applied (a new leader's first) */
  public RequestDispatch(KvApplier kv, Lessor lessor, LeaseKeeper keeper, MemberAttributes attributes,
      Alarms alarms, AuthApplier auth, java.util.function.LongConsumer termEntryApplied) {
    this.alarms = alarms;
    this.auth = auth;
    this.kv = kv;
    this.lessor = lessor;
    this.keeper = keeper;
    this.attributes = attributes;
    this.termEntryApplied = termEntryApplied;
  }

  @Override
  public void emptyEntryApplied(long term) {
    termEntryApplied.accept(term);
  }

  /** The response, after the lessor saw which keys the writes attached to or detached from leases. */
  private Object observed(ApplyResult<?> result) {
    lessor.observe(result.events());
    return result.response();
  }

  @Override
  public Object apply(KvStore store, long index, InternalRaftRequest r) {
    // etcd's corrupt applier wraps the auth one, which wraps the quota one: a client write is
    // refused on a corrupt cluster first, then checked for permission, at apply.
    if (Alarms.refusedWhileCorrupt(r) && alarms.active(AlarmType.CORRUPT)) {
      throw EtcdError.CORRUPT.exception();
    }
    auth.checkWrite(r, lessor);
    if (AuthApplier.isAuth(r)) {
      return auth.apply(store, index, r);
    }
    if (Quota.refusedWhileNoSpace(r) && alarms.active(AlarmType.NOSPACE)) {
      throw EtcdError.NO_SPACE.exception();
    }
    return switch (r.getRequestCase()) {
      case ALARM -> alarms.apply(store, r.getAlarm());
      case PUT -> observed(kv.put(store, index, r.getPut()));
      case DELETE_RANGE -> observed(kv.deleteRange(store, index, r.getDeleteRange()));
      case TXN -> observed(kv.txn(store, index, r.getTxn()));
      case LEASE_GRANT -> {
        var granted = lessor.grant(store, r.getLeaseGrant());
        keeper.granted(granted.getID(), granted.getTTL());
        yield granted;
      }
      case LEASE_REVOKE -> {
        var revoked = lessor.revoke(store, index, r.getLeaseRevoke());
        keeper.revoked(r.getLeaseRevoke().getID());
        yield revoked;
      }
      case LEASE_CHECKPOINT -> lessor.checkpoint(store, r.getLeaseCheckpoint());
      case COMPACTION -> {
        CompactResult c = kv.compact(store, r.getCompaction());
        yield r.getCompaction().getPhysical() ? c.durable().thenApply(v -> c.response()) : c.response();
      }
      case MEMBER_ATTR_SET -> {
        var a = r.getMemberAttrSet();
        attributes.publish(a.getMemberId(), a.getName(), a.getClientUrlsList().stream().map(java.net.URI::create).toList());
        yield EmptyResponse.getDefaultInstance();
      }
      default -> null;
    };
  }
}
