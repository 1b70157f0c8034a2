package io.akkaetcd.server;

import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.cluster.Cluster;
import akka.remote.RemoteActorRefProvider;
import io.akkaetcd.raft.peer.PeerFilter;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Tests' fault injection ({@link PeerFilter#quarantineRequests}): quarantines the current Akka
 * incarnation of each member asked for, as a manual down would, once per request (a member
 * asked for again after its request was withdrawn is quarantined again).
 */
final class InjectedQuarantine {
  private static final Logger log = LoggerFactory.getLogger(InjectedQuarantine.class);

  private final ActorSystem system;
  private final PeerFilter filter;
  private final LongFunction<String> addressOf;
  private final Set<Long> applied = new HashSet<>();

  InjectedQuarantine(ActorSystem system, PeerFilter filter, LongFunction<String> addressOf) {
    this.system = system;
    this.filter = filter;
    this.addressOf = addressOf;
  }

  void apply() {
    Set<Long> requests = filter.quarantineRequests();
    applied.retainAll(requests);
    for (long id : requests) {
      String address = addressOf.apply(id);
      if (address == null || applied.contains(id)) {
        continue;
      }
      // Once Akka Cluster knows the member's incarnation (its uid); until then, asked again.
      for (akka.cluster.Member m : Cluster.get(system).state().getMembers()) {
        long uid = m.uniqueAddress().longUid();
        if (m.address().toString().equals(address)) {
          log.warn("fault injection: quarantining {} (uid {})", address, uid);
          ((RemoteActorRefProvider) ((ExtendedActorSystem) system).provider())
              .quarantine(m.address(), Option.apply(uid), "fault injection");
          applied.add(id);
        }
      }
    }
  }
}
