package io.akkaetcd.server;

import akka.actor.AbstractActor;
import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.actor.Props;
import akka.cluster.Cluster;
import akka.remote.RemoteActorRefProvider;
import akka.remote.artery.ThisActorSystemQuarantinedEvent;
import io.akkaetcd.raft.peer.PeerFilter;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * A member whose Akka incarnation another member quarantined can never exchange messages with it
 * again: Artery refuses that incarnation for good. Nothing downs members here, so this is rare
 * (an operator's manual down, say), but then the member stops its actor system and starts again
 * as a new incarnation from its data directory, keeping its Raft state ({@link Main}).
 */
final class Quarantine {
  private static final Logger log = LoggerFactory.getLogger(Quarantine.class);

  private Quarantine() {}

  /** Runs {@code restart} once when this actor system learns that a peer quarantined it. */
  static void onQuarantined(ActorSystem system, Runnable restart) {
    akka.actor.ActorRef listener = ((ExtendedActorSystem) system).systemActorOf(
        Props.create(Listener.class, () -> new Listener(restart)), "quarantine-listener");
    system.eventStream().subscribe(listener, ThisActorSystemQuarantinedEvent.class);
  }

  private static final class Listener extends AbstractActor {
    private final Runnable restart;
    private boolean done;

    Listener(Runnable restart) {
      this.restart = restart;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().match(ThisActorSystemQuarantinedEvent.class, e -> {
        if (!done) {
          done = true;
          log.warn("quarantined by {}: stopping to start again as a new incarnation", e.remoteAddress().address());
          restart.run();
        }
      }).build();
    }
  }

  /**
   * Tests' fault injection ({@link PeerFilter#quarantineRequests}): quarantines the current Akka
   * incarnation of each member asked for, as a manual down would, once per request (a member
   * asked for again after its request was withdrawn is quarantined again).
   */
  static final class Injected {
    private final ActorSystem system;
    private final PeerFilter filter;
    private final LongFunction<String> addressOf;
    private final Set<Long> applied = new HashSet<>();

    Injected(ActorSystem system, PeerFilter filter, LongFunction<String> addressOf) {
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
}
