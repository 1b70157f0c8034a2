package io.akkaetcd.api;

import akka.actor.ClassicActorSystemProvider;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.japi.function.Function;
import akka.stream.Materializer;
import akka.stream.SystemMaterializer;
import io.akkaetcd.proto.etcdserverpb.Auth;
import io.akkaetcd.proto.etcdserverpb.Cluster;
import io.akkaetcd.proto.etcdserverpb.KV;
import io.akkaetcd.proto.etcdserverpb.Lease;
import io.akkaetcd.proto.etcdserverpb.Maintenance;
import io.akkaetcd.proto.etcdserverpb.Watch;
import io.akkaetcd.proto.health.Health;
import io.akkaetcd.api.pipeline.Pipeline;
import io.akkaetcd.concurrency.ElectionService;
import io.akkaetcd.concurrency.LockService;
import io.akkaetcd.proto.v3electionpb.Election;
import io.akkaetcd.proto.v3lockpb.Lock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The gRPC method table of a member's client URLs: every method of every service, unary and
 * streaming, through {@link GrpcServiceHandler} and so through the member's one {@link Pipeline}.
 * A method not listed is unknown (UNIMPLEMENTED, as grpc-go answers).
 */
public final class GrpcServices {
  private GrpcServices() {}

  /** Handlers by full gRPC service name (e.g. {@code etcdserverpb.KV}), for {@link ClientRouter}. */
  public static Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> handlers(ClientServices shared,
      int maxRequestBytes, ClassicActorSystemProvider system) {
    Materializer mat = SystemMaterializer.get(system).materializer();
    Pipeline pipeline = shared.pipeline();
    // every message a client sends or receives counts in the member's metrics, as etcd's codec does
    java.util.function.Function<String, GrpcServiceHandler.Builder> builder =
        name -> GrpcServiceHandler.builder(name).counting(shared.metrics().counting() ? shared.metrics() : null);
    Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services = new LinkedHashMap<>();
    KvService kv = shared.kv();
    services.put(KV.name, builder.apply(KV.name)
        .receiveLimit(maxRequestBytes + GrpcErrors.RECEIVE_OVERHEAD_BYTES)
        .encodedMethod("Range", KV.Serializers.RangeRequestSerializer, KV.Serializers.RangeResponseSerializer, kv::range,
            kv::rangeEncoded)
        .method("Put", KV.Serializers.PutRequestSerializer, KV.Serializers.PutResponseSerializer, kv::put)
        .method("DeleteRange", KV.Serializers.DeleteRangeRequestSerializer, KV.Serializers.DeleteRangeResponseSerializer,
            kv::deleteRange)
        .method("Txn", KV.Serializers.TxnRequestSerializer, KV.Serializers.TxnResponseSerializer, kv::txn)
        .method("Compact", KV.Serializers.CompactionRequestSerializer, KV.Serializers.CompactionResponseSerializer,
            kv::compact)
        .build(pipeline, mat, system));
    // A malformed unary request is answered INTERNAL here (the generated handlers fail the request's
    // stream, and a client may read the reset, CANCELLED).
    MaintenanceService maintenance = shared.maintenance();
    services.put(Maintenance.name, builder.apply(Maintenance.name)
        .method("Alarm", Maintenance.Serializers.AlarmRequestSerializer, Maintenance.Serializers.AlarmResponseSerializer,
            maintenance::alarm)
        .method("Status", Maintenance.Serializers.StatusRequestSerializer, Maintenance.Serializers.StatusResponseSerializer,
            maintenance::status)
        .method("Defragment", Maintenance.Serializers.DefragmentRequestSerializer,
            Maintenance.Serializers.DefragmentResponseSerializer, maintenance::defragment)
        .method("Hash", Maintenance.Serializers.HashRequestSerializer, Maintenance.Serializers.HashResponseSerializer,
            maintenance::hash)
        .method("HashKV", Maintenance.Serializers.HashKVRequestSerializer, Maintenance.Serializers.HashKVResponseSerializer,
            maintenance::hashKV)
        .method("MoveLeader", Maintenance.Serializers.MoveLeaderRequestSerializer,
            Maintenance.Serializers.MoveLeaderResponseSerializer, maintenance::moveLeader)
        .method("Downgrade", Maintenance.Serializers.DowngradeRequestSerializer,
            Maintenance.Serializers.DowngradeResponseSerializer, maintenance::downgrade)
        .encodedServerStream("Snapshot", Maintenance.Serializers.SnapshotRequestSerializer, maintenance::snapshot,
            maintenance::snapshotEncoded)
        .build(pipeline, mat, system));
    ClusterService cluster = shared.cluster();
    services.put(Cluster.name, builder.apply(Cluster.name)
        .method("MemberAdd", Cluster.Serializers.MemberAddRequestSerializer, Cluster.Serializers.MemberAddResponseSerializer,
            cluster::memberAdd)
        .method("MemberRemove", Cluster.Serializers.MemberRemoveRequestSerializer,
            Cluster.Serializers.MemberRemoveResponseSerializer, cluster::memberRemove)
        .method("MemberUpdate", Cluster.Serializers.MemberUpdateRequestSerializer,
            Cluster.Serializers.MemberUpdateResponseSerializer, cluster::memberUpdate)
        .method("MemberList", Cluster.Serializers.MemberListRequestSerializer, Cluster.Serializers.MemberListResponseSerializer,
            cluster::memberList)
        .method("MemberPromote", Cluster.Serializers.MemberPromoteRequestSerializer,
            Cluster.Serializers.MemberPromoteResponseSerializer, cluster::memberPromote)
        .build(pipeline, mat, system));
    services.put(Watch.name, builder.apply(Watch.name)
        .stream("Watch", Watch.Serializers.WatchRequestSerializer, Watch.Serializers.WatchResponseSerializer,
            shared.watch()::watch)
        .build(pipeline, mat, system));
    LeaseService lease = shared.lease();
    services.put(Lease.name, builder.apply(Lease.name)
        .method("LeaseGrant", Lease.Serializers.LeaseGrantRequestSerializer, Lease.Serializers.LeaseGrantResponseSerializer,
            lease::leaseGrant)
        .method("LeaseRevoke", Lease.Serializers.LeaseRevokeRequestSerializer, Lease.Serializers.LeaseRevokeResponseSerializer,
            lease::leaseRevoke)
        .method("LeaseTimeToLive", Lease.Serializers.LeaseTimeToLiveRequestSerializer,
            Lease.Serializers.LeaseTimeToLiveResponseSerializer, lease::leaseTimeToLive)
        .method("LeaseLeases", Lease.Serializers.LeaseLeasesRequestSerializer, Lease.Serializers.LeaseLeasesResponseSerializer,
            lease::leaseLeases)
        .stream("LeaseKeepAlive", Lease.Serializers.LeaseKeepAliveRequestSerializer,
            Lease.Serializers.LeaseKeepAliveResponseSerializer, lease::leaseKeepAlive)
        .build(pipeline, mat, system));
    AuthService auth = shared.auth();
    services.put(Auth.name, builder.apply(Auth.name)
        .method("AuthEnable", Auth.Serializers.AuthEnableRequestSerializer, Auth.Serializers.AuthEnableResponseSerializer,
            auth::authEnable)
        .method("AuthDisable", Auth.Serializers.AuthDisableRequestSerializer,
            Auth.Serializers.AuthDisableResponseSerializer, auth::authDisable)
        .method("AuthStatus", Auth.Serializers.AuthStatusRequestSerializer, Auth.Serializers.AuthStatusResponseSerializer,
            auth::authStatus)
        .method("Authenticate", Auth.Serializers.AuthenticateRequestSerializer,
            Auth.Serializers.AuthenticateResponseSerializer, auth::authenticate)
        .method("UserAdd", Auth.Serializers.AuthUserAddRequestSerializer, Auth.Serializers.AuthUserAddResponseSerializer,
            auth::userAdd)
        .method("UserGet", Auth.Serializers.AuthUserGetRequestSerializer, Auth.Serializers.AuthUserGetResponseSerializer,
            auth::userGet)
        .method("UserList", Auth.Serializers.AuthUserListRequestSerializer, Auth.Serializers.AuthUserListResponseSerializer,
            auth::userList)
        .method("UserDelete", Auth.Serializers.AuthUserDeleteRequestSerializer,
            Auth.Serializers.AuthUserDeleteResponseSerializer, auth::userDelete)
        .method("UserChangePassword", Auth.Serializers.AuthUserChangePasswordRequestSerializer,
            Auth.Serializers.AuthUserChangePasswordResponseSerializer, auth::userChangePassword)
        .method("UserGrantRole", Auth.Serializers.AuthUserGrantRoleRequestSerializer,
            Auth.Serializers.AuthUserGrantRoleResponseSerializer, auth::userGrantRole)
        .method("UserRevokeRole", Auth.Serializers.AuthUserRevokeRoleRequestSerializer,
            Auth.Serializers.AuthUserRevokeRoleResponseSerializer, auth::userRevokeRole)
        .method("RoleAdd", Auth.Serializers.AuthRoleAddRequestSerializer, Auth.Serializers.AuthRoleAddResponseSerializer,
            auth::roleAdd)
        .method("RoleGet", Auth.Serializers.AuthRoleGetRequestSerializer, Auth.Serializers.AuthRoleGetResponseSerializer,
            auth::roleGet)
        .method("RoleList", Auth.Serializers.AuthRoleListRequestSerializer, Auth.Serializers.AuthRoleListResponseSerializer,
            auth::roleList)
        .method("RoleDelete", Auth.Serializers.AuthRoleDeleteRequestSerializer,
            Auth.Serializers.AuthRoleDeleteResponseSerializer, auth::roleDelete)
        .method("RoleGrantPermission", Auth.Serializers.AuthRoleGrantPermissionRequestSerializer,
            Auth.Serializers.AuthRoleGrantPermissionResponseSerializer, auth::roleGrantPermission)
        .method("RoleRevokePermission", Auth.Serializers.AuthRoleRevokePermissionRequestSerializer,
            Auth.Serializers.AuthRoleRevokePermissionResponseSerializer, auth::roleRevokePermission)
        .build(pipeline, mat, system));
    HealthService health = shared.health();
    services.put(Health.name, builder.apply(Health.name)
        .method("Check", Health.Serializers.HealthCheckRequestSerializer, Health.Serializers.HealthCheckResponseSerializer,
            health::check)
        .serverStream("Watch", Health.Serializers.HealthCheckRequestSerializer,
            Health.Serializers.HealthCheckResponseSerializer, health::watch)
        .build(pipeline, mat, system));
    LockService lock = shared.lock();
    services.put(Lock.name, builder.apply(Lock.name)
        .waiting("Lock", Lock.Serializers.LockRequestSerializer, Lock.Serializers.LockResponseSerializer, lock::tryLock)
        .method("Unlock", Lock.Serializers.UnlockRequestSerializer, Lock.Serializers.UnlockResponseSerializer,
            lock::unlock)
        .build(pipeline, mat, system));
    ElectionService election = shared.election();
    services.put(Election.name, builder.apply(Election.name)
        .waiting("Campaign", Election.Serializers.CampaignRequestSerializer,
            Election.Serializers.CampaignResponseSerializer, election::tryCampaign)
        .method("Proclaim", Election.Serializers.ProclaimRequestSerializer,
            Election.Serializers.ProclaimResponseSerializer, election::proclaim)
        .method("Leader", Election.Serializers.LeaderRequestSerializer, Election.Serializers.LeaderResponseSerializer,
            election::leader)
        .serverStream("Observe", Election.Serializers.LeaderRequestSerializer,
            Election.Serializers.LeaderResponseSerializer, election::observe)
        .method("Resign", Election.Serializers.ResignRequestSerializer, Election.Serializers.ResignResponseSerializer,
            election::resign)
        .build(pipeline, mat, system));
    return services;
  }

  /**
   * The methods of {@code handlers} by full gRPC name, for a transport without gRPC framing
   * (the JSON gateway): every method registered above, through the same pipeline.
   */
  public static Map<String, PipelineMethod> pipelineMethods(
      Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> handlers) {
    Map<String, PipelineMethod> methods = new LinkedHashMap<>();
    handlers.values().forEach(h -> {
      if (h instanceof GrpcServiceHandler service) {
        methods.putAll(service.pipelineMethods());
      }
    });
    return methods;
  }
}
