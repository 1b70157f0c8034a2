package io.akkaetcd.server;

import akka.actor.typed.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.japi.function.Function;
import akka.stream.Materializer;
import akka.stream.SystemMaterializer;
import io.akkaetcd.api.ClientRouter;
import io.akkaetcd.api.ClientServices;
import io.akkaetcd.api.ClusterService;
import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.api.GrpcErrors;
import io.akkaetcd.api.KvService;
import io.akkaetcd.api.LeaseService;
import io.akkaetcd.api.MaintenanceService;
import io.akkaetcd.api.UnaryGrpcHandler;
import io.akkaetcd.proto.etcdserverpb.Cluster;
import io.akkaetcd.proto.etcdserverpb.ClusterHandlerFactory;
import io.akkaetcd.proto.etcdserverpb.KV;
import io.akkaetcd.proto.etcdserverpb.Lease;
import io.akkaetcd.proto.etcdserverpb.LeaseHandlerFactory;
import io.akkaetcd.proto.etcdserverpb.Maintenance;
import io.akkaetcd.proto.etcdserverpb.MaintenanceHandlerFactory;
import io.akkaetcd.proto.etcdserverpb.WatchHandlerFactory;
import io.akkaetcd.proto.health.HealthHandlerFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A member's client listeners: etcd's gRPC services (KV, Watch, Lease, Cluster, Maintenance,
 * Health) served over cleartext HTTP/2 by Akka HTTP on each --listen-client-urls, all routed
 * through one {@link ClientRouter}.
 */
final class ClientListeners {
  private ClientListeners() {}

  /**
   * Binds every --listen-client-urls to the gRPC services of {@code shared}; each binding unbinds
   * in {@code system}'s CoordinatedShutdown. Throws etcd's start-up error for an address taken.
   */
  static List<ServerBinding> bind(ServerConfig config, EtcdMember member, ClientServices shared,
      ActorSystem<?> system) {
    ClientRouter router = new ClientRouter(grpcServices(config, shared, system), member,
        Materializer.matFromSystem(system));
    List<ServerBinding> bindings = new ArrayList<>();
    for (URI url : config.listenClientUrls()) {
      ServerBinding binding;
      try {
        binding = Http.get(system).newServerAt(url.getHost(), url.getPort()).bind(router)
            .toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
      } catch (java.util.concurrent.CompletionException e) {
        // Taken since ListenUrls.check found it free: say so in one line, as etcd would have.
        throw ListenUrls.bindFailed(new InetSocketAddress(url.getHost(), url.getPort()), e);
      }
      binding.addToCoordinatedShutdown(Duration.ofSeconds(3), system);
      bindings.add(binding);
    }
    return List.copyOf(bindings);
  }

  /** etcd's gRPC services by name, each behind its handler (unary methods through {@link UnaryGrpcHandler}). */
  private static Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> grpcServices(ServerConfig config,
      ClientServices shared, ActorSystem<?> system) {
    Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services = new LinkedHashMap<>();
    Materializer unaryMaterializer = SystemMaterializer.get(system).materializer();
    KvService kvService = shared.kv();
    services.put("etcdserverpb.KV", UnaryGrpcHandler.builder()
        .receiveLimit(config.maxRequestBytes() + GrpcErrors.RECEIVE_OVERHEAD_BYTES)
        .method("Range", KV.Serializers.RangeRequestSerializer, KV.Serializers.RangeResponseSerializer, kvService::range)
        .method("Put", KV.Serializers.PutRequestSerializer, KV.Serializers.PutResponseSerializer, kvService::put)
        .method("DeleteRange", KV.Serializers.DeleteRangeRequestSerializer, KV.Serializers.DeleteRangeResponseSerializer,
            kvService::deleteRange)
        .method("Txn", KV.Serializers.TxnRequestSerializer, KV.Serializers.TxnResponseSerializer, kvService::txn)
        .method("Compact", KV.Serializers.CompactionRequestSerializer, KV.Serializers.CompactionResponseSerializer,
            kvService::compact)
        .build(unaryMaterializer, system));
    // Unary methods through UnaryGrpcHandler as well: a malformed request is answered INTERNAL (the
    // generated handlers fail the request's stream, and a client may read the reset, CANCELLED).
    MaintenanceService maintenance = shared.maintenance();
    services.put("etcdserverpb.Maintenance", UnaryGrpcHandler.builder()
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
        .otherwise(MaintenanceHandlerFactory.create(maintenance, GrpcErrors.MAPPER, system))
        .build(unaryMaterializer, system));
    ClusterService cluster = shared.cluster();
    services.put("etcdserverpb.Cluster", UnaryGrpcHandler.builder()
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
        .otherwise(ClusterHandlerFactory.create(cluster, GrpcErrors.MAPPER, system))
        .build(unaryMaterializer, system));
    services.put("etcdserverpb.Watch", WatchHandlerFactory.create(shared.watch(), system));
    LeaseService lease = shared.lease();
    services.put("etcdserverpb.Lease", UnaryGrpcHandler.builder()
        .method("LeaseGrant", Lease.Serializers.LeaseGrantRequestSerializer, Lease.Serializers.LeaseGrantResponseSerializer,
            lease::leaseGrant)
        .method("LeaseRevoke", Lease.Serializers.LeaseRevokeRequestSerializer, Lease.Serializers.LeaseRevokeResponseSerializer,
            lease::leaseRevoke)
        .method("LeaseTimeToLive", Lease.Serializers.LeaseTimeToLiveRequestSerializer,
            Lease.Serializers.LeaseTimeToLiveResponseSerializer, lease::leaseTimeToLive)
        .method("LeaseLeases", Lease.Serializers.LeaseLeasesRequestSerializer, Lease.Serializers.LeaseLeasesResponseSerializer,
            lease::leaseLeases)
        .otherwise(LeaseHandlerFactory.create(lease, GrpcErrors.MAPPER, system))
        .build(unaryMaterializer, system));
    services.put("grpc.health.v1.Health", HealthHandlerFactory.create(shared.health(), system));
    return services;
  }
}
