package io.akkaetcd.raft.peer;

import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What happens to a Raft message from a peer, whichever way it came (a Raft stream or Artery):
 * one from another cluster (a member bootstrapped with another --initial-cluster-token, say, at an
 * address this cluster knows) is dropped, as etcd rejects it with "request cluster ID mismatch",
 * so it neither votes nor disrupts terms here; one from a peer the gate blocks is dropped; the rest
 * go to the Raft member. Thread-safe.
 */
final class PeerReceipt {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PeerReceipt.class);
  private static final long WARN_EVERY_NANOS = 10_000_000_000L;

  private final Consumer<Message> deliver;
  private final PeerGate gate;
  private final long clusterId;
  private final PeerTraffic traffic;
  private final AtomicLong lastWarned = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

  PeerReceipt(Consumer<Message> deliver, PeerGate gate, long clusterId, PeerTraffic traffic) {
    this.deliver = deliver;
    this.gate = gate;
    this.clusterId = clusterId;
    this.traffic = traffic;
  }

  /** Hands {@code w} to the member unless it is from another cluster or from a blocked peer. */
  void receive(RaftMessage w) {
    if (w.getClusterId() != clusterId) {
      long now = System.nanoTime();
      long last = lastWarned.get();
      if (now - last > WARN_EVERY_NANOS && lastWarned.compareAndSet(last, now)) {
        log.warn("dropped a message from member {} of cluster {} (this is cluster {}): request cluster ID mismatch",
            Long.toHexString(w.getFrom()), Long.toHexString(w.getClusterId()), Long.toHexString(clusterId));
      }
    } else if (!gate.blocked(w.getFrom())) {
      traffic.received(w.getFrom(), w.getSerializedSize());
      deliver.accept(PeerCodec.fromWire(w));
    }
  }
}
