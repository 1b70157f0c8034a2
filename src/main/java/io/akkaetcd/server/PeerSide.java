package io.akkaetcd.server;

import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Adapter;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.MessageType;
import io.akkaetcd.raft.member.RaftInbox;
import io.akkaetcd.raft.peer.PeerActivity;
import io.akkaetcd.raft.peer.PeerGate;
import io.akkaetcd.raft.peer.PeerProbes;
import io.akkaetcd.raft.peer.PeerPort;
import io.akkaetcd.raft.peer.PeerStatusLog;
import io.akkaetcd.raft.peer.PeerTraffic;
import io.akkaetcd.raft.peer.PeerTransport;
import io.akkaetcd.raft.peer.RaftStreams;
import io.akkaetcd.raft.peer.StreamSockets;
import io.akkaetcd.snapshot.SnapshotTransfers;
import io.akkaetcd.snapshot.StateMachineSnapshots;
import io.akkaetcd.tls.PeerSslEngineProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A member's side towards its peers, over Artery in the classic system it lives in: the Raft
 * transport and its receiver, the link probes, the endpoints peers ask (cluster join, snapshot
 * transfers, promotions) and the quarantine listener. The receivers are children of the member's
 * guardian ({@code /user}), where peers address them. Exists only for a member with peers. Tests'
 * faults ({@link Faults}) plug in at the gate and once the side runs.
 */
final class PeerSide {
  private final ActorContext<?> guardian;
  private final ActorSystem classic;
  private final Membership membership;
  private final PeerGate gate;
  private final long clusterId;
  private final PeerTransport transport;

  /**
   * Starts the transport to {@code peers} and the receivers of Raft messages (into {@code inbox})
   * and of link probes (into {@code links}); both follow membership changes. {@code traffic} is
   * told what crosses the links (etcd's rafthttp metrics).
   */
  PeerSide(ActorContext<?> guardian, ServerConfig config, Membership membership,
      PeerGate gate, PeerActivity links, RaftInbox inbox, Faults faults, PeerTraffic traffic) {
    this.guardian = guardian;
    this.classic = Adapter.toClassic(guardian.getSystem());
    this.membership = membership;
    this.gate = gate;
    ClusterMembers members = membership.current();
    this.clusterId = members.clusterId();
    Map<Long, URI> peers = peerUrls(members);
    this.transport = new PeerTransport(classic, peers, gate, clusterId, traffic);
    StreamSockets sockets = streamSockets(config, members);
    PeerPort port = openPeerPort(config, members, sockets, inbox, traffic);
    RaftStreams streams = (!classic.settings().config().hasPath("akka-etcd.raft-streams")
        || classic.settings().config().getBoolean("akka-etcd.raft-streams"))
        ? new RaftStreams(peers, sockets, traffic) : null;
    if (streams != null) {
      transport.useStreams(streams);
    }
    classic.registerOnTermination(() -> {
      transport.close();
      port.close();
    });
    PeerProbes probes = new PeerProbes(classic, members.self().value(), peers, gate, clusterId, System::nanoTime);
    membership.onChange(m -> {
      Map<Long, URI> urls = peerUrls(m);
      transport.update(urls);
      probes.update(urls);
    });
    // On the Raft member's own thread: a message from a peer wakes one thread, not two.
    guardian.spawn(PeerTransport.receiver(inbox::deliver, gate, clusterId, traffic), PeerTransport.RECEIVER,
        DispatcherSelector.fromConfig("akka-etcd.raft-dispatcher"));
    Adapter.actorOf(guardian, ClusterJoin.endpoint(membership), ClusterJoin.ENDPOINT);
    guardian.spawn(PeerProbes.receiver(links, gate, clusterId, System::nanoTime, probes::echo, traffic), PeerProbes.RECEIVER);
    PeerStatusLog statusLog = new PeerStatusLog(links, members.self().value(), traffic);
    classic.scheduler().scheduleWithFixedDelay(config.heartbeatInterval(), config.heartbeatInterval(), () -> {
      probes.probeAll();
      statusLog.check(probes.peerIds(), System.nanoTime());
      if (streams != null) {
        streams.closeStalled();
      }
    }, classic.dispatcher());
    faults.peerSideStarted(classic, id -> peerAddress(membership, id));
  }

  /** Plain streams for an http:// peer URL, TLS with the peer flags for https:// (as Artery's transport, PeerConfig). */
  private static StreamSockets streamSockets(ServerConfig config, ClusterMembers members) {
    return PeerConfig.advertisedUrl(config, members).getScheme().equals("https")
        ? new TlsStreamSockets(PeerSslEngineProvider.sides(PeerConfig.peerTlsFlags(config))) : StreamSockets.PLAIN;
  }

  /**
   * Listens on the member's first --listen-peer-urls: Raft streams from peers go into {@code inbox},
   * Artery's connections on to Artery's own port (on the same host; loopback when that is a wildcard).
   */
  private PeerPort openPeerPort(ServerConfig config, ClusterMembers members, StreamSockets sockets, RaftInbox inbox,
      PeerTraffic traffic) {
    URI listen = PeerConfig.listenUrl(config, members);
    InetSocketAddress address = new InetSocketAddress(listen.getHost(), listen.getPort());
    akka.actor.Address bound = ((akka.remote.artery.ArteryTransport) ((akka.remote.RemoteActorRefProvider)
        ((ExtendedActorSystem) classic).provider()).transport()).bindAddress().address();
    boolean wildcard = address.getAddress() != null && address.getAddress().isAnyLocalAddress();
    InetSocketAddress artery = new InetSocketAddress(
        wildcard ? InetAddress.getLoopbackAddress().getHostAddress() : bound.host().get(), (Integer) bound.port().get());
    int maxFrame = (int) Math.min(Integer.MAX_VALUE,
        PeerConfig.maxFrameBytes(config, io.akkaetcd.raft.member.RaftMember.MAX_APPEND_BYTES));
    try {
      return PeerPort.open(address, artery, sockets, inbox::deliver, gate, clusterId, traffic, maxFrame);
    } catch (IOException e) {
      throw ListenUrls.bindFailed(address, e);
    }
  }

  /**
   * Serves snapshots of {@code stateMachine} to followers that need entries this log no longer
   * holds, and takes them from the leader; returns how the Raft member sends its messages.
   */
  Consumer<Message> sender(StateMachineSnapshots stateMachine, RaftInbox inbox) {
    SnapshotTransfers snapshots = new SnapshotTransfers(classic, stateMachine, id -> peerAddress(membership, id),
        inbox::snapshotSent, gate, clusterId);
    Adapter.actorOf(guardian, snapshots.receiverProps(), SnapshotTransfers.RECEIVER);
    return m -> {
      if (m.type() == MessageType.SNAPSHOT) {
        snapshots.send(m);
      } else {
        transport.send(m);
      }
    };
  }

  /** Answers the promotions other members forward to this one while it leads. */
  void servePromotions(ActorSystem system, LongFunction<CompletionStage<?>> promote) {
    ((ExtendedActorSystem) system).systemActorOf(PromoteForwarding.endpoint(promote, clusterId),
        PromoteForwarding.ENDPOINT);
  }

  /** Runs {@code restart} once a peer quarantined this incarnation; a leader stops heartbeating first. */
  void onQuarantined(Runnable restart) {
    Quarantine.onQuarantined(classic, () -> {
      transport.close(); // a leader stops heartbeating now, so the others elect at once
      restart.run();
    });
  }

  /** Asks other members' actors at their Artery address (their first peer URL in the membership). */
  static PeerAsk peerAsk(ActorSystem classic, Membership membership, PeerGate gate) {
    return new PeerAsk(classic, id -> peerAddress(membership, id), gate);
  }

  /** A member's Artery address (from its first peer URL), or null if it is not a member. */
  private static String peerAddress(Membership membership, long id) {
    return membership.current().member(id).map(m -> PeerTransport.address(m.peerUrls().get(0))).orElse(null);
  }

  /** Every other member's first peer URL, by member id. */
  static Map<Long, URI> peerUrls(ClusterMembers members) {
    Map<Long, URI> peers = new LinkedHashMap<>();
    members.members().stream().filter(m -> !m.id().equals(members.self()))
        .forEach(m -> peers.put(m.id().value(), m.peerUrls().get(0)));
    return peers;
  }

  /** Member ids by the names members are listed with: bootstrapped, or published once they run. */
  static Map<String, Long> idsByName(Membership membership, MemberAttributes attributes) {
    Map<String, Long> ids = new LinkedHashMap<>();
    membership.current().members().forEach(m -> ids.put(attributes.nameOf(m), m.id().value()));
    return ids;
  }
}
