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
import io.akkaetcd.raft.peer.PeerFilter;
import io.akkaetcd.raft.peer.PeerProbes;
import io.akkaetcd.raft.peer.PeerTransport;
import io.akkaetcd.snapshot.SnapshotTransfers;
import io.akkaetcd.snapshot.StateMachineSnapshots;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's side towards its peers, over Artery in the classic system it lives in: the Raft
 * transport and its receiver, the link probes, the endpoints peers ask (cluster join, snapshot
 * transfers, promotions) and the quarantine listener. The receivers are children of the member's
 * guardian ({@code /user}), where peers address them. Exists only for a member with peers.
 */
final class PeerSide {
  private static final Logger log = LoggerFactory.getLogger(PeerSide.class);

  private final ActorContext<?> guardian;
  private final ActorSystem classic;
  private final Membership membership;
  private final PeerFilter filter;
  private final long clusterId;
  private final PeerTransport transport;

  /**
   * Starts the transport to {@code peers} and the receivers of Raft messages (into {@code inbox})
   * and of link probes (into {@code links}); both follow membership changes.
   */
  PeerSide(ActorContext<?> guardian, ServerConfig config, Membership membership, MemberAttributes attributes,
      PeerFilter filter, PeerActivity links, RaftInbox inbox) {
    this.guardian = guardian;
    this.classic = Adapter.toClassic(guardian.getSystem());
    this.membership = membership;
    this.filter = filter;
    ClusterMembers members = membership.current();
    this.clusterId = members.clusterId();
    Map<Long, URI> peers = peerUrls(members);
    this.transport = new PeerTransport(classic, peers, filter, clusterId);
    PeerProbes probes = new PeerProbes(classic, members.self().value(), peers, filter, clusterId);
    membership.onChange(m -> {
      Map<Long, URI> urls = peerUrls(m);
      transport.update(urls);
      probes.update(urls);
    });
    // On the Raft member's own thread: a message from a peer wakes one thread, not two.
    guardian.spawn(PeerTransport.receiver(inbox::deliver, filter, clusterId), PeerTransport.RECEIVER,
        DispatcherSelector.fromConfig("akka-etcd.raft-dispatcher"));
    Adapter.actorOf(guardian, ClusterJoin.endpoint(membership), ClusterJoin.ENDPOINT);
    guardian.spawn(PeerProbes.receiver(links, filter, clusterId, System::nanoTime), PeerProbes.RECEIVER);
    classic.scheduler().scheduleWithFixedDelay(config.heartbeatInterval(), config.heartbeatInterval(),
        probes::probeAll, classic.dispatcher());
    if (filter.active()) {
      Quarantine.Injected injected = new Quarantine.Injected(classic, filter, id -> peerAddress(membership, id));
      classic.scheduler().scheduleWithFixedDelay(Duration.ofMillis(50), Duration.ofMillis(50), () -> {
        filter.reload();
        try {
          injected.apply();
        } catch (RuntimeException e) {
          log.warn("fault injection: quarantine failed", e);
        }
      }, classic.dispatcher());
    }
  }

  /**
   * Serves snapshots of {@code stateMachine} to followers that need entries this log no longer
   * holds, and takes them from the leader; returns how the Raft member sends its messages.
   */
  Consumer<Message> sender(StateMachineSnapshots stateMachine, RaftInbox inbox) {
    SnapshotTransfers snapshots = new SnapshotTransfers(classic, stateMachine, id -> peerAddress(membership, id),
        inbox::snapshotSent, filter, clusterId);
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
  static PeerAsk peerAsk(ActorSystem classic, Membership membership, PeerFilter filter) {
    return new PeerAsk(classic, id -> peerAddress(membership, id), filter);
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

  /** The test-only fault injection of {@link PeerFilter}, if akka-etcd.fault-injection names a file. */
  static PeerFilter peerFilter(com.typesafe.config.Config settings, Membership membership,
      MemberAttributes attributes) {
    String file = settings.getString("akka-etcd.fault-injection.blocked-peers-file");
    if (file.isEmpty()) {
      return PeerFilter.NONE;
    }
    log.warn("fault injection on: links to the members named in {} are cut", file);
    // By the names members are listed with: bootstrapped, or published once they run.
    return PeerFilter.following(java.nio.file.Path.of(file), () -> {
      Map<String, Long> ids = new LinkedHashMap<>();
      membership.current().members().forEach(m -> ids.put(attributes.nameOf(m), m.id().value()));
      return ids;
    });
  }
}
