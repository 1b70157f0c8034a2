package io.akkaetcd.api;

import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.proto.etcdserverpb.Cluster;
import io.akkaetcd.proto.etcdserverpb.Member;
import io.akkaetcd.proto.etcdserverpb.MemberAddRequest;
import io.akkaetcd.proto.etcdserverpb.MemberAddResponse;
import io.akkaetcd.proto.etcdserverpb.MemberListRequest;
import io.akkaetcd.proto.etcdserverpb.MemberListResponse;
import io.akkaetcd.proto.etcdserverpb.MemberPromoteRequest;
import io.akkaetcd.proto.etcdserverpb.MemberPromoteResponse;
import io.akkaetcd.proto.etcdserverpb.MemberRemoveRequest;
import io.akkaetcd.proto.etcdserverpb.MemberRemoveResponse;
import io.akkaetcd.proto.etcdserverpb.MemberUpdateRequest;
import io.akkaetcd.proto.etcdserverpb.MemberUpdateResponse;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * etcd's Cluster service. MemberList answers from the applied membership; MemberAdd (voters and
 * learners), MemberRemove, MemberUpdate and MemberPromote go through Raft as configuration changes.
 */
public final class ClusterService implements Cluster {
  private final EtcdMember member;

  public ClusterService(EtcdMember member) {
    this.member = member;
  }

  @Override
  public CompletionStage<MemberListResponse> memberList(MemberListRequest in) {
    MemberListResponse.Builder b = MemberListResponse.newBuilder()
        // etcd answers membership calls with a header that carries no revision.
        .setHeader(member.header(0));
    byId(member.members()).forEach(m -> b.addMembers(toProto(m)));
    return CompletableFuture.completedFuture(b.build());
  }

  /** The members as etcd lists them in every answer: by id, unsigned (membership's MembersByID). */
  private static List<ClusterMembers.Member> byId(ClusterMembers members) {
    return members.members().stream()
        .sorted((a, b) -> Long.compareUnsigned(a.id().value(), b.id().value())).toList();
  }

  private Member toProto(ClusterMembers.Member m) {
    Member.Builder mb = Member.newBuilder().setID(m.id().value()).setName(member.name(m)).setIsLearner(m.learner());
    m.peerUrls().stream().map(URI::toString).forEach(mb::addPeerURLs);
    member.clientUrls(m).stream().map(URI::toString).forEach(mb::addClientURLs);
    return mb.build();
  }

  @Override
  public CompletionStage<MemberAddResponse> memberAdd(MemberAddRequest in) {
    List<URI> urls;
    try {
      urls = in.getPeerURLsList().stream().map(URI::create).toList();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_BAD_URLS.exception());
    }
    return EtcdFailures.guarded(() -> member.addMember(urls, in.getIsLearner()).thenApply(members -> {
      MemberAddResponse.Builder b = MemberAddResponse.newBuilder().setHeader(member.header(0));
      byId(members).forEach(m -> {
        Member p = toProto(m);
        b.addMembers(p);
        if (m.peerUrls().equals(urls)) {
          b.setMember(p);
        }
      });
      return b.build();
    }));
  }

  @Override
  public CompletionStage<MemberRemoveResponse> memberRemove(MemberRemoveRequest in) {
    return EtcdFailures.guarded(() -> member.removeMember(in.getID()).thenApply(members -> {
      MemberRemoveResponse.Builder b = MemberRemoveResponse.newBuilder().setHeader(member.header(0));
      byId(members).forEach(m -> b.addMembers(toProto(m)));
      return b.build();
    }));
  }

  @Override
  public CompletionStage<MemberUpdateResponse> memberUpdate(MemberUpdateRequest in) {
    List<URI> urls;
    try {
      urls = in.getPeerURLsList().stream().map(URI::create).toList();
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(EtcdError.MEMBER_BAD_URLS.exception());
    }
    return EtcdFailures.guarded(() -> member.updateMember(in.getID(), urls).thenApply(members -> {
      MemberUpdateResponse.Builder b = MemberUpdateResponse.newBuilder().setHeader(member.header(0));
      byId(members).forEach(m -> b.addMembers(toProto(m)));
      return b.build();
    }));
  }

  @Override
  public CompletionStage<MemberPromoteResponse> memberPromote(MemberPromoteRequest in) {
    return EtcdFailures.guarded(() -> member.promoteMember(in.getID()).thenApply(members -> {
      MemberPromoteResponse.Builder b = MemberPromoteResponse.newBuilder().setHeader(member.header(0));
      byId(members).forEach(m -> b.addMembers(toProto(m)));
      return b.build();
    }));
  }
}
