package io.akkaetcd.api;

import akka.actor.typed.ActorSystem;
import io.akkaetcd.api.pipeline.CallObserver;
import io.akkaetcd.api.pipeline.Pipeline;
import io.akkaetcd.api.pipeline.Plugins;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.lease.LeaseForwarding;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.metrics.EtcdMetrics;
import io.akkaetcd.watch.WatchHub;
import java.time.Duration;

/**
 * A member's client-facing services and the one {@link Pipeline} in front of them, built once:
 * the gRPC transport ({@link GrpcServices}) and the in-process client
 * ({@code io.akkaetcd.embed.EtcdClient}) call the very same instances through it, so both see one
 * set of semantics, stages and errors.
 */
public record ClientServices(Pipeline pipeline, KvService kv, LeaseService lease, WatchService watch,
    ClusterService cluster, MaintenanceService maintenance, HealthService health, EtcdMetrics metrics) {

  /**
   * The services of {@code member} behind a pipeline with {@code plugins} (auth, metrics), and
   * the member's etcd metrics: the pipeline feeds their grpc_server_* besides any plugged observer.
   */
  public static ClientServices create(EtcdMember member, KvApplier kv, Lessor lessor, LeaseForwarding leases,
      WatchHub hub, ActorSystem<?> system, Duration watchProgressInterval, Plugins plugins) {
    EtcdMetrics metrics = new EtcdMetrics(new MemberMetricsGauges(member), false, true);
    CallObserver grpcMetrics = new GrpcMetricsObserver(metrics.grpc());
    CallObserver observer = plugins.observer() == CallObserver.NONE ? grpcMetrics
        : CallObservers.both(grpcMetrics, plugins.observer());
    return new ClientServices(Pipeline.standard(member, plugins.withObserver(observer)), new KvService(member, kv),
        new LeaseService(member, lessor, leases), new WatchService(member, hub, system, watchProgressInterval),
        new ClusterService(member), new MaintenanceService(member), new HealthService(member), metrics);
  }
}
