package io.akkaetcd.api;

import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.alarm.Quota;
import io.akkaetcd.errors.EtcdError;
import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.lease.LeaseForwarding;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.mvcc.KeyOrder;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.Lease;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseStatus;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveResponse;
import java.util.concurrent.CompletionStage;

/**
 * etcd's Lease service. Grant and revoke go through Raft; keep-alives renew the leader's deadline
 * (no Raft entry, as in etcd; a follower forwards them to the leader); TimeToLive reads the
 * applied lessor after a linearizable barrier and the seconds left on the leader's clock.
 */
public final class LeaseService implements Lease {
  private final EtcdMember member;
  private final Lessor lessor;
  private final LeaseForwarding leader;
  private final QuotaGate quota;

  public LeaseService(EtcdMember member, Lessor lessor, LeaseForwarding leader) {
    this.member = member;
    this.lessor = lessor;
    this.leader = leader;
    this.quota = new QuotaGate(member);
  }

  @Override
  public CompletionStage<LeaseGrantResponse> leaseGrant(LeaseGrantRequest in) {
    return EtcdFailures.guarded(() -> {
      if (in.getTTL() > Lessor.MAX_TTL) {
        throw EtcdError.LEASE_TTL_TOO_LARGE.exception();
      }
      LeaseGrantRequest withId = in.getID() != 0 ? in : in.toBuilder().setID(member.newLeaseId()).build();
      return quota.admit(Quota.leaseGrantCost())
          .thenCompose(v -> member.propose(InternalRaftRequest.newBuilder().setLeaseGrant(withId))).thenApply(r -> {
        LeaseGrantResponse g = (LeaseGrantResponse) r;
        return g.toBuilder().setHeader(member.header(g.getHeader().getRevision())).build();
      });
    });
  }

  @Override
  public CompletionStage<LeaseRevokeResponse> leaseRevoke(LeaseRevokeRequest in) {
    io.akkaetcd.auth.AuthInfo who = io.akkaetcd.api.pipeline.CurrentCall.authInfo(); // checked at apply
    return EtcdFailures.guarded(() -> member.propose(Callers.by(who, InternalRaftRequest.newBuilder().setLeaseRevoke(in)))
        .thenApply(r -> {
      LeaseRevokeResponse v = (LeaseRevokeResponse) r;
      return v.toBuilder().setHeader(member.header(v.getHeader().getRevision())).build();
    }));
  }

  @Override
  public Source<LeaseKeepAliveResponse, NotUsed> leaseKeepAlive(Source<LeaseKeepAliveRequest, NotUsed> in) {
    return in.mapAsync(1, req -> leader.renew(req.getID()).thenApply(ttl -> LeaseKeepAliveResponse.newBuilder()
            .setHeader(member.header(member.store().currentRevision()))
            .setID(req.getID())
            .setTTL(ttl)
            .build()));
  }

  @Override
  public CompletionStage<LeaseTimeToLiveResponse> leaseTimeToLive(LeaseTimeToLiveRequest in) {
    return EtcdFailures.guarded(() -> member.linearizableBarrier()
        .thenCompose(v -> leader.remainingSeconds(in.getID()))
        .thenApply(remaining -> {
      LeaseTimeToLiveResponse.Builder b = LeaseTimeToLiveResponse.newBuilder()
          .setHeader(member.header(member.store().currentRevision())).setID(in.getID());
      var lease = lessor.get(in.getID());
      if (lease.isEmpty() || remaining < 0) {
        return b.setTTL(-1).build();
      }
      b.setTTL(remaining).setGrantedTTL(lease.get().ttl());
      if (in.getKeys()) {
        lease.get().keys().stream().sorted(KeyOrder.COMPARATOR)
            .forEach(b::addKeys);
      }
      return b.build();
    }));
  }

  @Override
  public CompletionStage<LeaseLeasesResponse> leaseLeases(LeaseLeasesRequest in) {
    return EtcdFailures.guarded(() -> member.linearizableBarrier().thenApply(v -> {
      LeaseLeasesResponse.Builder b = LeaseLeasesResponse.newBuilder()
          .setHeader(member.header(member.store().currentRevision()));
      lessor.ids().stream().sorted().forEach(id -> b.addLeases(LeaseStatus.newBuilder().setID(id)));
      return b.build();
    }));
  }
}
