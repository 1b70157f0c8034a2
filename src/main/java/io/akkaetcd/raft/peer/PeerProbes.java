package io.akkaetcd.raft.peer;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.akkaetcd.proto.peerpb.PeerProbe;
import java.net.URI;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Keeps {@link PeerActivity} current: every member sends each peer a {@link PeerProbe} every
 * heartbeat interval, to {@code /user/}{@value #RECEIVER} at the peer's address, and records the
 * probes it receives. etcd reads the same from its transport (a stream to every peer, whether Raft
 * has anything to send on it or not); Raft's own messages would not do, as followers send none to
 * each other. Akka Cluster's membership does not either: a first seed node restarted while its
 * peers are slow to answer forms an Akka cluster of its own, in which it does not see them.
 *
 * <p>Probes cross the same {@link PeerGate} as Raft messages, so a cut link goes inactive.
 */
public final class PeerProbes {
  public static final String RECEIVER = "peer-probe";

  private final ExtendedActorSystem system;
  private final PeerProbe probe;
  private final PeerGate gate;
  private volatile Map<Long, ActorRef> peers = Map.of();

  /**
   * @param self this member's id, which its probes carry
   * @param peerUrls every other member's first peer URL, by member id
   */
  public PeerProbes(ActorSystem system, long self, Map<Long, URI> peerUrls, PeerGate gate, long clusterId) {
    this.system = (ExtendedActorSystem) system;
    this.probe = PeerProbe.newBuilder().setFrom(self).setClusterId(clusterId).build();
    this.gate = gate;
    update(peerUrls);
  }

  /** The peers after a membership change. */
  public void update(Map<Long, URI> peerUrls) {
    peers = PeerTransport.actorsAt(system, peerUrls, RECEIVER);
  }

  /** The peers probed now, by member id. */
  public java.util.Set<Long> peerIds() {
    return peers.keySet();
  }

  /** Sends one probe to every peer whose link the gate leaves open. */
  public void probeAll() {
    peers.forEach((id, ref) -> {
      if (!gate.blocked(id)) {
        ref.tell(probe, ActorRef.noSender());
      }
    });
  }

  /** The receiver: records each probe from a peer of {@code clusterId} whose link is open. */
  public static Behavior<PeerProbe> receiver(PeerActivity activity, PeerGate gate, long clusterId, LongSupplier clock) {
    return Behaviors.receive(PeerProbe.class)
        .onMessage(PeerProbe.class, p -> {
          if (p.getClusterId() == clusterId && !gate.blocked(p.getFrom())) {
            activity.heard(p.getFrom(), clock.getAsLong());
          }
          return Behaviors.same();
        })
        .build();
  }
}
