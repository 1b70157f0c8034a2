package io.akkaetcd.server;

import akka.actor.AbstractActor;
import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.actor.Props;
import akka.remote.artery.ThisActorSystemQuarantinedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member whose Akka incarnation another member quarantined can never exchange messages with it
 * again: Artery refuses that incarnation for good. Nothing downs members here, so this is rare
 * (an operator's manual down, say), but then the member stops its actor system and starts again
 * as a new incarnation from its data directory, keeping its Raft state ({@link io.akkaetcd.embed.EmbeddedEtcd}).
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
}
