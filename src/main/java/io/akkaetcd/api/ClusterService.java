package io.akkaetcd.api;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * etcd's Cluster service. MemberList answers from the bootstrapped membership; changing
 * membership comes with multi-member clusters and answers UNIMPLEMENTED until then.
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
    for (ClusterMembers.Member m : member.members().members()) {
      Member.Builder mb = Member.newBuilder().setID(m.id().value()).setName(m.name()).setIsLearner(m.learner());
      m.peerUrls().stream().map(URI::toString).forEach(mb::addPeerURLs);
      member.clientUrls(m).stream().map(URI::toString).forEach(mb::addClientURLs);
      b.addMembers(mb);
    }
    return CompletableFuture.completedFuture(b.build());
  }

  @Override
  public CompletionStage<MemberAddResponse> memberAdd(MemberAddRequest in) {
    return CompletableFuture.failedFuture(GrpcErrors.unimplemented("/etcdserverpb.Cluster/MemberAdd"));
  }

  @Override
  public CompletionStage<MemberRemoveResponse> memberRemove(MemberRemoveRequest in) {
    return CompletableFuture.failedFuture(GrpcErrors.unimplemented("/etcdserverpb.Cluster/MemberRemove"));
  }

  @Override
  public CompletionStage<MemberUpdateResponse> memberUpdate(MemberUpdateRequest in) {
    return CompletableFuture.failedFuture(GrpcErrors.unimplemented("/etcdserverpb.Cluster/MemberUpdate"));
  }

  @Override
  public CompletionStage<MemberPromoteResponse> memberPromote(MemberPromoteRequest in) {
    return CompletableFuture.failedFuture(GrpcErrors.unimplemented("/etcdserverpb.Cluster/MemberPromote"));
  }
}
