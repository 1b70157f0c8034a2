package io.akkaetcd.api;

import akka.actor.typed.ActorSystem;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.lease.LeaseForwarding;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.watch.WatchHub;
import java.time.Duration;

/**
 * A member's client-facing services, built once: the gRPC transport registers these instances,
 * and the in-process client ({@code io.akkaetcd.embed.EtcdClient}) calls the very same ones, so
 * both see one set of semantics and errors.
 */
public record ClientServices(KvService kv, LeaseService lease, WatchService watch, ClusterService cluster,
    MaintenanceService maintenance, HealthService health) {

  public static ClientServices create(EtcdMember member, KvApplier kv, Lessor lessor, LeaseForwarding leases,
      WatchHub hub, ActorSystem<?> system, Duration watchProgressInterval) {
    return new ClientServices(new KvService(member, kv), new LeaseService(member, lessor, leases),
        new WatchService(member, hub, system, watchProgressInterval), new ClusterService(member),
        new MaintenanceService(member), new HealthService(member));
  }
}
