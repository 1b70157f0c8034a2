package io.akkaetcd.server;

import akka.actor.ActorSystem;
import akka.actor.Address;
import akka.actor.AddressFromURIString;
import akka.cluster.Cluster;
import akka.cluster.Member;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberId;
import io.akkaetcd.raft.peer.PeerTransport;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Downs in Akka Cluster the peers that Raft removed and that are unreachable. Akka Cluster is the
 * peers' transport and its gossip only, and nothing is downed automatically ({@link PeerConfig}):
 * a member that died and was then removed stayed unreachable for good, so no leave could converge
 * and every later stop of the others waited out Akka's cluster-exiting phase. A removed member
 * that is alive stops on its own as it applies its removal, and leaves; it is never downed while
 * reachable. Only removals count: a member whose peer URLs changed (member update) is restarted
 * on its new URL by its operator.
 */
final class RemovedPeers implements Consumer<ClusterMembers>, Runnable {
  /** How often the removed peers still in Akka Cluster are looked at. */
  static final Duration EVERY = Duration.ofSeconds(1);
  private static final Logger log = LoggerFactory.getLogger(RemovedPeers.class);

  private final Cluster cluster;
  private final MemberId self;
  /** The membership as last applied; the applier's thread only. */
  private Map<MemberId, List<URI>> known;
  /** Removed peers' transport addresses, until they are downed or gone from Akka Cluster. */
  private final Map<Address, MemberId> removed = new ConcurrentHashMap<>();

  RemovedPeers(ActorSystem peerSystem, ClusterMembers members) {
    this.cluster = Cluster.get(peerSystem);
    this.self = members.self();
    this.known = peerUrls(members);
  }

  /** A membership listener: notes the peers the change removed (applier thread). */
  @Override
  public void accept(ClusterMembers now) {
    Map<MemberId, List<URI>> current = peerUrls(now);
    known.forEach((id, urls) -> {
      if (!current.containsKey(id) && !id.equals(self) && !urls.isEmpty()) {
        // Artery's address is the first peer URL (PeerConfig)
        removed.put(AddressFromURIString.parse(PeerTransport.address(urls.get(0))), id);
      }
    });
    known = current;
  }

  /** Downs each removed peer that Akka Cluster finds unreachable; forgets those it no longer has. */
  @Override
  public void run() {
    if (removed.isEmpty()) {
      return;
    }
    Set<Address> inCluster = addresses(cluster.state().getMembers());
    Set<Address> unreachable = addresses(cluster.state().getUnreachable());
    removed.forEach((address, id) -> {
      if (unreachable.contains(address)) {
        log.info("{} downs removed member {} ({}): unreachable in the peer transport's cluster", self, id, address);
        cluster.down(address);
        removed.remove(address);
      } else if (!inCluster.contains(address)) {
        removed.remove(address); // left, or never joined: nothing waits for it
      }
    });
  }

  private static Set<Address> addresses(Iterable<Member> members) {
    return StreamSupport.stream(members.spliterator(), false).map(Member::address).collect(Collectors.toSet());
  }

  private static Map<MemberId, List<URI>> peerUrls(ClusterMembers members) {
    return members.members().stream().collect(Collectors.toMap(ClusterMembers.Member::id, ClusterMembers.Member::peerUrls));
  }
}
