package io.akkaetcd.api;

import akka.actor.typed.ActorSystem;
import akka.stream.Materializer;
import akka.stream.SystemMaterializer;
import io.akkaetcd.api.pipeline.Authenticator;
import io.akkaetcd.api.pipeline.Authorizer;
import io.akkaetcd.api.pipeline.CallObserver;
import io.akkaetcd.api.pipeline.Pipeline;
import io.akkaetcd.api.pipeline.Plugins;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.concurrency.ElectionService;
import io.akkaetcd.concurrency.LockService;
import io.akkaetcd.auth.Passwords;
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
    ClusterService cluster, MaintenanceService maintenance, HealthService health, LockService lock,
    ElectionService election, AuthService auth, EtcdMetrics metrics) {

  /**
   * The services of {@code member} behind a pipeline with {@code plugins} (auth, metrics), and
   * the member's etcd {@code metrics}: the pipeline feeds their grpc_server_* besides any plugged
   * observer.
   * Auth's stages are the member's token check and permission checks, as {@code policy} says,
   * unless {@code plugins} brings its own.
   */
  public static ClientServices create(EtcdMember member, KvApplier kv, Lessor lessor, LeaseForwarding leases,
      WatchHub hub, ActorSystem<?> system, Duration watchProgressInterval, Plugins plugins, AuthApplier auth,
      Passwords passwords, EtcdMetrics metrics, AuthPolicy policy) {
    if (plugins.authenticator() == Authenticator.ALLOW_ALL) {
      plugins = plugins.withAuthenticator(new TokenAuthenticator(auth, policy.certificateUsers(), policy.strictMatrix()));
    }
    if (plugins.authorizer() == Authorizer.ALLOW_ALL) {
      plugins = plugins.withAuthorizer(new RequestAuthorizer(auth, policy.strictMatrix(), lessor));
    }
    CallObserver grpcMetrics = metrics.counting() ? new GrpcMetricsObserver(metrics.grpc()) : CallObserver.NONE;
    CallObserver observer = plugins.observer() == CallObserver.NONE ? grpcMetrics
        : grpcMetrics == CallObserver.NONE ? plugins.observer() : CallObservers.both(grpcMetrics, plugins.observer());
    Pipeline pipeline = Pipeline.standard(member, plugins.withObserver(observer));
    KvService kvService = new KvService(member, kv);
    LeaseService lease = new LeaseService(member, lessor, leases);
    WatchService watch = new WatchService(member, hub, system, watchProgressInterval, auth);
    // The recipes call the member as their caller does: through the pipeline, to these very services.
    PipelineStore store = new PipelineStore(pipeline, kvService, lease, watch);
    Materializer mat = SystemMaterializer.get(system).materializer();
    return new ClientServices(pipeline, kvService, lease, watch, new ClusterService(member),
        new MaintenanceService(member), new HealthService(member), new LockService(store::forCurrentCall, mat),
        new ElectionService(store::forCurrentCall, mat), new AuthService(member, auth, passwords), metrics);
  }
}
