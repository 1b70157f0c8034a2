package io.akkaetcd.server;

import io.akkaetcd.metrics.EtcdMetrics;
import io.akkaetcd.raft.peer.PeerTraffic;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feeds etcd's rafthttp series from the peer transport, labelled as etcd labels them: by member id
 * in hex (types.ID's String). The byte counters' children are kept by peer id, so a message
 * costs a map lookup and an add: no string built, no lock.
 */
final class PeerMetrics implements PeerTraffic {
  private final EtcdMetrics metrics;
  private final String local;
  private final ConcurrentHashMap<Long, CounterDataPoint> sentBytes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, CounterDataPoint> receivedBytes = new ConcurrentHashMap<>();

  PeerMetrics(EtcdMetrics metrics, long self) {
    this.metrics = metrics;
    this.local = Long.toHexString(self);
  }

  /** The traffic reporter for a member: nothing when counting is off. */
  static PeerTraffic of(EtcdMetrics metrics, long self) {
    return metrics.counting() ? new PeerMetrics(metrics, self) : PeerTraffic.NONE;
  }

  @Override
  public void sent(long to, int bytes) {
    sentBytes.computeIfAbsent(to, id -> metrics.peerSentBytes.labelValues(Long.toHexString(id))).inc(bytes);
  }

  @Override
  public void sendFailed(long to) {
    metrics.peerSentFailures.labelValues(Long.toHexString(to)).inc();
  }

  @Override
  public void received(long from, int bytes) {
    receivedBytes.computeIfAbsent(from, id -> metrics.peerReceivedBytes.labelValues(Long.toHexString(id)))
        .inc(bytes);
  }

  @Override
  public void roundTrip(long peer, long nanos) {
    metrics.peerRoundTripTime.labelValues(Long.toHexString(peer)).observe(nanos / 1e9);
  }

  /** As etcd's peerStatus: active sets the gauge to 1; losing the link sets 0 and counts a disconnect. */
  @Override
  public void linkChanged(long peer, boolean active) {
    String remote = Long.toHexString(peer);
    metrics.activePeers.labelValues(local, remote).set(active ? 1 : 0);
    if (!active) {
      metrics.disconnectedPeers.labelValues(local, remote).inc();
    }
  }

  /** A removed member's link is no longer active; its removal is no disconnect. */
  @Override
  public void removed(long peer) {
    metrics.activePeers.labelValues(local, Long.toHexString(peer)).set(0);
  }
}
