package io.akkaetcd.server;

import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.cluster.MemberId;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.proto.raftpb.ConfChange;
import io.akkaetcd.proto.raftpb.ConfChangeType;
import io.akkaetcd.raft.member.RaftStatus;
import io.akkaetcd.raft.peer.PeerActivity;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * etcd's membership changes (MemberAdd, MemberPromote, MemberRemove, MemberUpdate): checked as
 * etcd checks them, strict reconfiguration first, then proposed to Raft as a conf change; each
 * completes with the members once the change is applied here.
 */
final class MembershipChanges {
  /** etcd's default --max-learners. */
  static final int MAX_LEARNERS = 1;

  private final ServerConfig config;
  private final Membership membership;
  private final MemberAttributes attributes;
  /** The links from the peers, as their probes show them (empty for a member alone). */
  private final PeerActivity links;
  private final Proposals proposals;
  private final Supplier<RaftStatus> raftStatus;
  private final PromoteForwarding promotions;
  private final Duration requestTimeout;

  MembershipChanges(ServerConfig config, Membership membership, MemberAttributes attributes, PeerActivity links,
      Proposals proposals, Supplier<RaftStatus> raftStatus, PromoteForwarding promotions, Duration requestTimeout) {
    this.config = config;
    this.membership = membership;
    this.attributes = attributes;
    this.links = links;
    this.proposals = proposals;
    this.raftStatus = raftStatus;
    this.promotions = promotions;
    this.requestTimeout = requestTimeout;
  }

  CompletionStage<ClusterMembers> addMember(List<URI> peerUrls, boolean learner) {
    ClusterMembers now = membership.current();
    if (!validPeerUrls(peerUrls)) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_BAD_URLS.exception());
    }
    // etcd's --strict-reconfig-check comes first, as in etcd.
    Optional<EtcdError> refused = reconfigCheck(now).mayAdd(learner);
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get().exception());
    }
    if (learner && now.learnerIds().size() >= MAX_LEARNERS) {
      return CompletableFuture.failedFuture(EtcdError.TOO_MANY_LEARNERS.exception());
    }
    if (peerUrlsTaken(now, peerUrls, 0)) {
      return CompletableFuture.failedFuture(EtcdError.PEER_URL_EXIST.exception());
    }
    MemberId id = MemberId.of(peerUrls, config.initialClusterToken());
    if (now.member(id.value()).isPresent()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_EXIST.exception());
    }
    return propose(ConfChange.newBuilder()
        .setType(learner ? ConfChangeType.ADD_LEARNER : ConfChangeType.ADD_MEMBER).setMemberId(id.value())
        .addAllPeerUrls(peerUrls.stream().map(URI::toString).toList()));
  }

  /**
   * etcd's MemberPromote. Only the leader knows how far a learner has caught up, so a member that
   * does not lead asks the leader ({@link PromoteForwarding}); the answer comes once this member
   * has applied the promotion too.
   */
  CompletionStage<ClusterMembers> promoteMember(long id) {
    ClusterMembers now = membership.current();
    Optional<ClusterMembers.Member> m = now.member(id);
    if (m.isEmpty()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_FOUND.exception());
    }
    if (!m.get().learner()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_LEARNER.exception());
    }
    RaftStatus status = raftStatus.get();
    if (!status.isLeader()) {
      return promotions.forward(status.leader(), id).thenCompose(v -> membership.awaitVoter(id, requestTimeout));
    }
    // etcd's isLearnerReady: the learner's log matches at least 90% of the leader's.
    long match = status.learnerMatches().getOrDefault(id, 0L);
    if (match < status.committedIndex() * 0.9) {
      return CompletableFuture.failedFuture(EtcdError.LEARNER_NOT_READY.exception());
    }
    Optional<EtcdError> refused = reconfigCheck(now).mayPromote();
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get().exception());
    }
    return propose(ConfChange.newBuilder().setType(ConfChangeType.PROMOTE_MEMBER).setMemberId(id));
  }

  CompletionStage<ClusterMembers> removeMember(long id) {
    ClusterMembers now = membership.current();
    Optional<EtcdError> refused = now.voterIds().contains(id) ? reconfigCheck(now).mayRemoveVoter(id) : Optional.empty();
    if (refused.isPresent()) {
      return CompletableFuture.failedFuture(refused.get().exception());
    }
    if (now.member(id).isEmpty()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_FOUND.exception());
    }
    return propose(ConfChange.newBuilder().setType(ConfChangeType.REMOVE_MEMBER).setMemberId(id));
  }

  CompletionStage<ClusterMembers> updateMember(long id, List<URI> peerUrls) {
    ClusterMembers now = membership.current();
    if (now.member(id).isEmpty()) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_NOT_FOUND.exception());
    }
    if (!validPeerUrls(peerUrls)) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_BAD_URLS.exception());
    }
    if (peerUrlsTaken(now, peerUrls, id)) {
      return CompletableFuture.failedFuture(EtcdError.PEER_URL_EXIST.exception());
    }
    return propose(ConfChange.newBuilder().setType(ConfChangeType.UPDATE_MEMBER).setMemberId(id)
        .addAllPeerUrls(peerUrls.stream().map(URI::toString).toList()));
  }

  private CompletionStage<ClusterMembers> propose(ConfChange.Builder change) {
    return proposals.proposeConfChange(change).thenApply(r -> (ClusterMembers) r);
  }

  /** Peer URLs a member can be reached at: at least one, each with a host and a port. */
  private static boolean validPeerUrls(List<URI> urls) {
    return !urls.isEmpty() && urls.stream().allMatch(u -> u.getHost() != null && u.getPort() > 0);
  }

  /** True if a member other than {@code except} already has one of {@code urls}. */
  private static boolean peerUrlsTaken(ClusterMembers members, List<URI> urls, long except) {
    return members.members().stream()
        .anyMatch(m -> m.id().value() != except && m.peerUrls().stream().anyMatch(urls::contains));
  }

  /** etcd's strict reconfiguration check on the members as applied and the links as they are now. */
  private StrictReconfigCheck reconfigCheck(ClusterMembers now) {
    return new StrictReconfigCheck(config.strictReconfigCheck(), now, m -> !attributes.nameOf(m).isEmpty(), links,
        System.nanoTime());
  }
}
