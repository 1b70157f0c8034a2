package io.akkaetcd.embed;

import io.akkaetcd.api.ClusterService;
import io.akkaetcd.api.MaintenanceService;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.proto.etcdserverpb.MemberListRequest;
import io.akkaetcd.proto.etcdserverpb.MemberListResponse;
import io.akkaetcd.proto.etcdserverpb.StatusRequest;
import io.akkaetcd.proto.etcdserverpb.StatusResponse;
import java.util.concurrent.CompletionStage;

/** The member's status and the cluster's members, as Maintenance/Status and Cluster/MemberList answer. */
public final class Members {
  private final Calls calls;
  private final ClusterService cluster;
  private final MaintenanceService maintenance;

  Members(Calls calls, ClusterService cluster, MaintenanceService maintenance) {
    this.calls = calls;
    this.cluster = cluster;
    this.maintenance = maintenance;
  }

  /** This member's status: version, db size, leader, raft index and term. A learner answers it too. */
  public CompletionStage<StatusResponse> status() {
    return calls.unary(Methods.STATUS, StatusRequest.getDefaultInstance(), maintenance::status);
  }

  /** The cluster's members as this member has applied them. */
  public CompletionStage<MemberListResponse> memberList() {
    return calls.unary(Methods.MEMBER_LIST, MemberListRequest.getDefaultInstance(), cluster::memberList);
  }
}
