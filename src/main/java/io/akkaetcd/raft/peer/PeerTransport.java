package io.akkaetcd.raft.peer;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Raft messages between members over Akka's Artery TCP transport. Every member runs its actor
 * system as {@value #SYSTEM} on its first peer URL, with a receiver actor at {@code /user/}
 * {@value #RECEIVER}; a message to member {@code m} goes to that path at {@code m}'s peer URL.
 *
 * <p>Addressed by path alone (a reference without the actor's uid, so no lookup and no selection
 * envelope per message): a peer that restarts (a new incarnation on the same host and port) gets
 * the messages sent after it is up, with nothing to re-resolve.
 * Artery keeps the order of messages between two members and drops them when a peer is down or
 * its queue is full; Raft retransmits what matters (heartbeats, probes, elections).
 *
 * <p>With {@link RaftStreams} in use, a message goes over its peer's stream while that is up and
 * by Artery otherwise; messages that change ways may arrive out of order, which Raft tolerates as
 * it tolerates loss (a stale append is refused and the leader probes again).
 */
public final class PeerTransport {
  /** The name of every member's actor system: Artery addresses include it. */
  public static final String SYSTEM = "akka-etcd";
  public static final String RECEIVER = "raft-peer";

  private final ExtendedActorSystem system;
  private final PeerGate gate;
  private final long clusterId;
  private final PeerTraffic traffic;
  private volatile Map<Long, ActorRef> peers = Map.of();
  /** Set when the member is going away: nothing more is sent. */
  private volatile boolean closed;
  /** The Raft streams to the peers, which carry what they can; null: everything goes by Artery. */
  private volatile RaftStreams streams;

  /**
   * @param peerUrls every other member's first peer URL, by member id
   * @param clusterId this member's cluster, stamped on every message sent
   */
  public PeerTransport(ActorSystem system, Map<Long, URI> peerUrls, PeerGate gate, long clusterId) {
    this(system, peerUrls, gate, clusterId, PeerTraffic.NONE);
  }

  /** @param traffic told the wire size of each message sent, and of each one not sent */
  public PeerTransport(ActorSystem system, Map<Long, URI> peerUrls, PeerGate gate, long clusterId,
      PeerTraffic traffic) {
    this.system = (ExtendedActorSystem) system;
    this.gate = gate;
    this.clusterId = clusterId;
    this.traffic = traffic;
    update(peerUrls);
  }

  /** The peers after a membership change: every other member's first peer URL, by member id. */
  public void update(Map<Long, URI> peerUrls) {
    peers = actorsAt(system, peerUrls, RECEIVER);
    RaftStreams s = streams;
    if (s != null) {
      s.update(peerUrls);
    }
  }

  /** From now on a message goes over {@code streams} when its peer's stream is up, else by Artery. */
  public void useStreams(RaftStreams streams) {
    this.streams = streams;
  }

  /** A reference to the actor {@code /user/<name>} at every peer's address, by member id. */
  static Map<Long, ActorRef> actorsAt(ExtendedActorSystem system, Map<Long, URI> peerUrls, String name) {
    Map<Long, ActorRef> refs = new HashMap<>();
    peerUrls.forEach((id, url) -> refs.put(id, byPath(system, address(url) + "/user/" + name)));
    return Map.copyOf(refs);
  }

  /** A reference to whatever actor lives at {@code path}, in any incarnation of its system. */
  public static ActorRef byPath(ExtendedActorSystem system, String path) {
    return system.provider().resolveActorRef(path);
  }

  /** The Artery address of the member whose peer URL this is. */
  public static String address(URI peerUrl) {
    return "akka://" + SYSTEM + "@" + peerUrl.getHost() + ":" + peerUrl.getPort();
  }

  /** Sends a message to its {@code to}; a message to an unknown member is dropped, as Raft allows. */
  public void send(Message m) {
    ActorRef peer = peers.get(m.to());
    if (peer == null) {
      return;
    }
    if (closed || gate.blocked(m.to())) {
      traffic.sendFailed(m.to());
      return;
    }
    RaftMessage wire = PeerCodec.toWire(m, clusterId);
    // The size is memoized: the stream's and Artery's serializers reuse it, so counting costs no second pass.
    traffic.sent(m.to(), wire.getSerializedSize());
    RaftStreams s = streams;
    if (s == null || !s.send(m.to(), wire)) {
      peer.tell(wire, ActorRef.noSender());
    }
  }

  /**
   * Sends nothing more, at once: a member that stops because it was quarantined must not keep
   * leading (its heartbeats would hold off an election) while its actor system shuts down.
   */
  public void close() {
    closed = true;
    RaftStreams s = streams;
    if (s != null) {
      s.close();
    }
  }

  /**
   * The receiver actor: hands every message from a peer of {@code clusterId} to the Raft member
   * (through its inbox), by {@link PeerReceipt}'s rules.
   */
  public static Behavior<RaftMessage> receiver(Consumer<Message> deliver, PeerGate gate, long clusterId) {
    return receiver(deliver, gate, clusterId, PeerTraffic.NONE);
  }

  /** As above, telling {@code traffic} the wire size of each message delivered. */
  public static Behavior<RaftMessage> receiver(Consumer<Message> deliver, PeerGate gate, long clusterId,
      PeerTraffic traffic) {
    PeerReceipt receipt = new PeerReceipt(deliver, gate, clusterId, traffic);
    return Behaviors.receive(RaftMessage.class)
        .onMessage(RaftMessage.class, w -> {
          receipt.receive(w);
          return Behaviors.same();
        })
        .build();
  }
}
