package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.AbstractActor;
import akka.actor.ActorSystem;
import akka.actor.DeadLetter;
import akka.actor.Props;
import akka.actor.typed.javadsl.Adapter;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.MessageType;
import io.akkaetcd.raft.peer.PeerGate;
import io.akkaetcd.raft.peer.PeerTransport;
import io.akkaetcd.server.OwnSystemConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A restarted member gets its peers' messages before its receivers exist (Artery is up first, the
 * receivers come once its log is recovered); those go to dead letters. Later messages must still
 * reach the receivers, however many times Artery has advertised its compression tables since (it
 * did so every minute, and a table that named the dead-letter target of the early messages sent
 * every later one there: the member lost every peer a minute after its restart, for good).
 */
class EarlyPeerMessagesTest {
  private static final long CLUSTER = 7;
  /** Artery's table advertisements, every minute in a member, here every 100 ms. */
  private static final String INTERVALS = """
      akka-etcd.own-actor-system.akka.remote.artery.advanced.compression {
        actor-refs.advertisement-interval = 100ms
        manifests.advertisement-interval = 100ms
      }
      """;

  @Test
  void messagesSentBeforeTheReceiverExistsDoNotMisrouteLaterOnes() {
    Config base = ConfigFactory.parseString(INTERVALS).withFallback(ConfigFactory.load());
    int port = Ports.free();
    ActorSystem member = system(base, port);
    ActorSystem peer = system(base, Ports.free());
    try {
      AtomicLong deadLetters = new AtomicLong();
      member.eventStream().subscribe(member.actorOf(Props.create(Counter.class, () -> new Counter(deadLetters))),
          DeadLetter.class);
      PeerTransport toMember = new PeerTransport(peer, Map.of(1L, URI.create("http://127.0.0.1:" + port)),
          PeerGate.OPEN, CLUSTER);
      long term = 0;
      // Artery's heavy hitters count the early messages' target only once the handshake is done:
      // plenty of them, over several advertisements.
      deadline(Duration.ofSeconds(60));
      while (deadLetters.get() < 200) {
        toMember.send(heartbeat(++term));
        pause("no dead letters yet: " + deadLetters.get());
      }
      AtomicLong lastDelivered = new AtomicLong();
      Adapter.spawn(member, PeerTransport.receiver(m -> lastDelivered.set(m.term()), PeerGate.OPEN, CLUSTER),
          PeerTransport.RECEIVER);
      // Dozens of advertisements with the receiver up, then one more message, which must arrive.
      long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < until) {
        toMember.send(heartbeat(++term));
        LockSupport.parkNanos(10_000_000L); // a peer's message every 10 ms, as a leader's heartbeats
      }
      long last = ++term;
      deadline(Duration.ofSeconds(30));
      while (lastDelivered.get() < last) {
        toMember.send(heartbeat(last));
        pause("the receiver got nothing after term " + lastDelivered.get() + " of " + last
            + " (dead letters: " + deadLetters.get() + ")");
      }
    } finally {
      peer.terminate();
      member.terminate();
    }
  }

  private static ActorSystem system(Config base, int port) {
    Config c = ConfigFactory.parseMap(Map.of(
        "akka.actor.provider", "remote",
        "akka.remote.artery.transport", "tcp",
        "akka.remote.artery.canonical.hostname", "127.0.0.1",
        "akka.remote.artery.canonical.port", port)).withFallback(OwnSystemConfig.of(base));
    return ActorSystem.create(PeerTransport.SYSTEM, c);
  }

  private static Message heartbeat(long term) {
    return new Message(MessageType.HEARTBEAT, 2, 1, term, 0, 0, List.of(), 0, false, 0, null);
  }

  private long deadlineNanos;

  private void deadline(Duration d) {
    deadlineNanos = System.nanoTime() + d.toNanos();
  }

  private void pause(String failure) {
    assertTrue(System.nanoTime() < deadlineNanos, failure);
    LockSupport.parkNanos(10_000_000L); // the next message, bounded by the deadline
  }

  private static final class Counter extends AbstractActor {
    private final AtomicLong count;

    Counter(AtomicLong count) {
      this.count = count;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().match(DeadLetter.class, d -> count.incrementAndGet()).build();
    }
  }
}
