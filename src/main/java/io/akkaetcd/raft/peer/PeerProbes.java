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
 *
 * <p>Each probe is echoed back, and the prober reports the time from send to echo as the round
 * trip: etcd's prober does the same over HTTP (GET /raft/probing) every 5 s and feeds
 * etcd_network_peer_round_trip_time_seconds from it. Here it is every heartbeat, through Artery.
 */
public final class PeerProbes {
  public static final String RECEIVER = "peer-probe";

  private final ExtendedActorSystem system;
  private final PeerProbe probe;
  private final PeerGate gate;
  private final LongSupplier clock;
  private volatile Map<Long, ActorRef> peers = Map.of();

  /**
   * @param self this member's id, which its probes carry
   * @param peerUrls every other member's first peer URL, by member id
   */
  public PeerProbes(ActorSystem system, long self, Map<Long, URI> peerUrls, PeerGate gate, long clusterId,
      LongSupplier clock) {
    this.system = (ExtendedActorSystem) system;
    this.probe = PeerProbe.newBuilder().setFrom(self).setClusterId(clusterId).build();
    this.gate = gate;
    this.clock = clock;
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
    PeerProbe stamped = probe.toBuilder().setSentNanos(clock.getAsLong()).build();
    peers.forEach((id, ref) -> {
      if (!gate.blocked(id)) {
        ref.tell(stamped, ActorRef.noSender());
      }
    });
  }

  /** Answers {@code p} to the peer that sent it, with its send time unchanged. */
  public void echo(PeerProbe p) {
    ActorRef ref = peers.get(p.getFrom());
    if (ref != null && !gate.blocked(p.getFrom())) {
      ref.tell(probe.toBuilder().setSentNanos(p.getSentNanos()).setEcho(true).build(), ActorRef.noSender());
    }
  }

  /** The receiver: records each probe from a peer of {@code clusterId} whose link is open. */
  public static Behavior<PeerProbe> receiver(PeerActivity activity, PeerGate gate, long clusterId, LongSupplier clock) {
    return receiver(activity, gate, clusterId, clock, p -> { }, PeerTraffic.NONE);
  }

  /**
   * As above, and answers each probe through {@code echo} ({@link #echo}); an echo of this
   * member's own probe reports its round trip to {@code traffic}.
   */
  public static Behavior<PeerProbe> receiver(PeerActivity activity, PeerGate gate, long clusterId, LongSupplier clock,
      java.util.function.Consumer<PeerProbe> echo, PeerTraffic traffic) {
    return Behaviors.receive(PeerProbe.class)
        .onMessage(PeerProbe.class, p -> {
          if (p.getClusterId() == clusterId && !gate.blocked(p.getFrom())) {
            long now = clock.getAsLong();
            activity.heard(p.getFrom(), now);
            if (p.getEcho()) {
              traffic.roundTrip(p.getFrom(), now - p.getSentNanos());
            } else {
              echo.accept(p);
            }
          }
          return Behaviors.same();
        })
        .build();
  }
}
