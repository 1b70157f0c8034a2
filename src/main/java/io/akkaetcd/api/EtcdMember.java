package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.MemberGate;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.raft.member.RaftStatus;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * What the gRPC services need of the member below them. The API validates, maps errors and
 * fills headers; it never changes state except by {@link #propose}.
 */
public interface EtcdMember extends MemberGate {

  /**
   * Proposes a request through Raft (the id is assigned here) and completes with the applier's
   * response once the entry is applied, or fails with an {@link EtcdException}.
   */
  CompletionStage<Object> propose(InternalRaftRequest.Builder request);

  /**
   * Completes on the read executor once this member has applied everything committed before the
   * call (ReadIndex): a read served after it is linearizable.
   */
  CompletionStage<Void> linearizableBarrier();

  /**
   * MoveLeader: hands leadership from this member (which must lead) to {@code transferee} (a
   * voting member) and completes once the transferee leads, or fails with etcd's error.
   */
  CompletionStage<Void> moveLeader(long transferee);

  /** MemberAdd: adds a voter (or a learner) with these peer URLs; completes with the members once applied. */
  CompletionStage<ClusterMembers> addMember(java.util.List<java.net.URI> peerUrls, boolean learner);

  /** MemberPromote: makes a caught-up learner a voter; completes with the members once applied here. */
  CompletionStage<ClusterMembers> promoteMember(long id);

  /** Whether this member is a learner: it serves only serializable reads and Status. */
  @Override
  default boolean isLearner() {
    return members().selfMember().map(ClusterMembers.Member::learner).orElse(false);
  }

  /** MemberUpdate: new peer URLs for a member; completes with the members once applied. */
  CompletionStage<ClusterMembers> updateMember(long id, java.util.List<java.net.URI> peerUrls);

  /** MemberRemove: completes with the remaining members once applied. */
  CompletionStage<ClusterMembers> removeMember(long id);

  /**
   * Completes once this member serves clients (etcd's ReadyNotify): at once, except for a member
   * of a cluster that has not recorded its own name and client URLs yet, which waits until its
   * publication is applied here. Until then requests wait, as etcd's do.
   */
  @Override
  default CompletionStage<Void> ready() {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /** Told (once, maybe twice under a race) when the first client request has been answered. */
  default void firstRequestAnswered() {}

  /** Executor for reads: off the apply path and off the gRPC transport threads. */
  Executor readExecutor();

  KvStore store();

  /** A new lease id for a grant that did not choose one: unique, positive. */
  long newLeaseId();

  RaftStatus raftStatus();

  /** How long a request may wait for its entry or read index (etcd's: 5 s + 2 × the election timeout). */
  java.time.Duration requestTimeout();

  @Override
  default boolean hasLeader() {
    return raftStatus().leader() != 0;
  }

  ClusterMembers members();

  /** The client URLs a member lists: as it published them through Raft, else as bootstrapped. */
  default java.util.List<java.net.URI> clientUrls(ClusterMembers.Member m) {
    return m.clientUrls();
  }

  /** The name a member lists: as it published it, else as known from the bootstrap or the change. */
  default String name(ClusterMembers.Member m) {
    return m.name();
  }

  /** The server's configuration limits (--max-request-bytes, --max-txn-ops, quota). */
  int maxRequestBytes();

  int maxTxnOps();

  long quotaBackendBytes();

  /** The alarms raised in the cluster, as this member applied them. */
  io.akkaetcd.alarm.Alarms alarms();

  /** The free space of this member's data directory against its reserve. */
  io.akkaetcd.alarm.DiskSpace diskSpace();

  String serverVersion();

  /** The cluster version /version reports (etcd's etcdcluster field). */
  String clusterVersion();

  /** A response header: cluster id, this member's id, the given revision, the current term. */
  default ResponseHeader header(long revision) {
    return ResponseHeader.newBuilder()
        .setClusterId(members().clusterId())
        .setMemberId(members().self().value())
        .setRevision(revision)
        .setRaftTerm(raftStatus().term())
        .build();
  }
}
