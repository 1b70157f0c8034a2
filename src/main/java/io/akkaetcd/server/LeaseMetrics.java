package io.akkaetcd.server;

import io.akkaetcd.lease.LeaseObserver;
import io.akkaetcd.metrics.EtcdMetrics;

/** Feeds etcd 3.4's etcd_debugging_lease_* series from the lessor and the leader's keeper. */
final class LeaseMetrics implements LeaseObserver {
  private final EtcdMetrics metrics;

  LeaseMetrics(EtcdMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void granted(long ttlSeconds) {
    metrics.leasesGranted.inc();
    metrics.leaseTtl.observe(ttlSeconds);
  }

  @Override
  public void revoked() {
    metrics.leasesRevoked.inc();
  }

  @Override
  public void renewed() {
    metrics.leasesRenewed.inc();
  }
}
