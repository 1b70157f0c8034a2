package io.akkaetcd.snapshot;

import akka.actor.ActorRef;
import akka.actor.ActorSystem;
import akka.actor.ExtendedActorSystem;
import akka.actor.Props;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.MessageType;
import io.akkaetcd.raft.peer.PeerGate;
import io.akkaetcd.raft.peer.PeerTransport;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * Snapshot transfers between members: the Raft core's {@link MessageType#SNAPSHOT} messages start
 * a {@link SnapshotSender} to that follower (at most one per follower), and every member runs a
 * {@link SnapshotReceiver} at {@code /user/}{@value #RECEIVER}. The end of each transfer is
 * reported to the core ({@code ended}), which then probes the follower again.
 */
public final class SnapshotTransfers {
  public static final String RECEIVER = "raft-snapshot";

  private final ExtendedActorSystem system;
  private final StateMachineSnapshots stateMachine;
  private final LongFunction<String> addressOf;
  private final LongConsumer ended;
  private final PeerGate gate;
  private final long clusterId;
  private final Set<Long> sending = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicLong transfers = new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param addressOf a member's Artery address by id (null if unknown)
   * @param ended told the member id when a transfer to it ends, either way
   * @param clusterId this member's cluster: chunks carry it, and the receiver drops others'
   */
  public SnapshotTransfers(ActorSystem system, StateMachineSnapshots stateMachine, LongFunction<String> addressOf,
      LongConsumer ended, PeerGate gate, long clusterId) {
    this.clusterId = clusterId;
    this.system = (ExtendedActorSystem) system;
    this.stateMachine = stateMachine;
    this.addressOf = addressOf;
    this.ended = ended;
    this.gate = gate;
  }

  /** The receiver every member runs, to be started under {@value #RECEIVER}. */
  public Props receiverProps() {
    return SnapshotReceiver.props(stateMachine, gate, clusterId);
  }

  /** Starts the transfer a SNAPSHOT message asks for, unless one to that member is running. */
  public void send(Message m) {
    long to = m.to();
    String address = addressOf.apply(to);
    if (address == null) {
      ended.accept(to);
      return;
    }
    if (!sending.add(to)) {
      return;
    }
    ActorRef receiver = PeerTransport.byPath(system, address + "/user/" + RECEIVER);
    Runnable done = () -> {
      sending.remove(to);
      ended.accept(to);
    };
    try {
      system.systemActorOf(SnapshotSender.props(to, m.from(), m.term(), receiver, stateMachine, done, gate, clusterId),
          "snapshot-to-" + Long.toHexString(to) + "-" + transfers.incrementAndGet());
    } catch (RuntimeException e) {
      done.run(); // the system is stopping
    }
  }
}
