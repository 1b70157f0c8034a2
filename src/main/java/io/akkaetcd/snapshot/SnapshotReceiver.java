package io.akkaetcd.snapshot;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.Props;
import io.akkaetcd.mvcc.IncomingStore;
import io.akkaetcd.proto.peerpb.SnapshotAck;
import io.akkaetcd.proto.peerpb.SnapshotChunk;
import io.akkaetcd.raft.peer.PeerGate;
import java.nio.file.Path;

/**
 * Receives snapshots of the leader's state machine (one transfer at a time; a new one replaces an
 * unfinished one) into a store beside the live one, and installs each once its last chunk is in.
 * A snapshot not ahead of what this member applied is refused at its first chunk, and so is any
 * transfer while a received store waits for its install (it must not be overwritten), and any
 * chunk from another cluster. Every chunk is answered: the last one only after the install, so the
 * sender's success means installed.
 */
final class SnapshotReceiver extends AbstractActor {
  private final StateMachineSnapshots stateMachine;
  private final PeerGate gate;
  private final long clusterId;
  /** A received store is being installed: no new transfer until it is done. */
  private boolean installing;

  /** The install of the transfer whose last chunk is {@code last} ended, with {@code error} or not. */
  private record Installed(SnapshotChunk last, ActorRef sender, Throwable error) {}

  private IncomingStore incoming;
  private SnapshotChunk first;
  private long expectedSeq;

  static Props props(StateMachineSnapshots stateMachine, PeerGate gate, long clusterId) {
    return Props.create(SnapshotReceiver.class, () -> new SnapshotReceiver(stateMachine, gate, clusterId))
        .withDispatcher("akka.actor.default-blocking-io-dispatcher");
  }

  private SnapshotReceiver(StateMachineSnapshots stateMachine, PeerGate gate, long clusterId) {
    this.stateMachine = stateMachine;
    this.gate = gate;
    this.clusterId = clusterId;
  }

  @Override
  public Receive createReceive() {
    return receiveBuilder()
        .match(SnapshotChunk.class, this::onChunk)
        .match(Installed.class, this::onInstalled)
        .build();
  }

  private void onChunk(SnapshotChunk chunk) {
    if (gate.blocked(chunk.getFrom()) || chunk.getClusterId() != clusterId) {
      return;
    }
    ActorRef sender = getSender();
    try {
      if (chunk.getSeq() == 0) {
        if (installing) {
          answer(sender, chunk, false);
          return;
        }
        abandon();
        if (chunk.getIndex() <= stateMachine.appliedIndex()) {
          answer(sender, chunk, false);
          return;
        }
        first = chunk;
        expectedSeq = 0;
        incoming = stateMachine.receive();
        getContext().getSystem().log().info("receiving a snapshot at {} (term {}) from {}", chunk.getIndex(),
            chunk.getIndexTerm(), Long.toHexString(chunk.getFrom()));
      } else if (incoming == null || chunk.getTransferId() != first.getTransferId() || chunk.getSeq() != expectedSeq) {
        answer(sender, chunk, false);
        return;
      }
      incoming.write(chunk.getKeysList(), chunk.getValuesList());
      expectedSeq++;
      if (!chunk.getLast()) {
        answer(sender, chunk, true);
        return;
      }
      Path store = incoming.finish();
      incoming = null;
      installing = true;
      ActorRef self = getSelf();
      stateMachine.install(first, store).whenComplete((done, error) ->
          self.tell(new Installed(chunk, sender, error), ActorRef.noSender()));
    } catch (RuntimeException e) {
      getContext().getSystem().log().error(e, "receiving a snapshot failed");
      abandon();
      answer(sender, chunk, false);
    }
  }

  private void onInstalled(Installed done) {
    installing = false;
    if (done.error() != null) {
      getContext().getSystem().log().warning("snapshot at {} not installed: {}", first.getIndex(), done.error().toString());
    }
    answer(done.sender(), done.last(), done.error() == null);
  }

  private void answer(ActorRef to, SnapshotChunk chunk, boolean ok) {
    to.tell(SnapshotAck.newBuilder().setTransferId(chunk.getTransferId()).setSeq(chunk.getSeq()).setOk(ok).build(),
        ActorRef.noSender());
  }

  /** Drops an unfinished transfer. */
  private void abandon() {
    if (incoming != null) {
      incoming.close();
      incoming = null;
    }
  }

  @Override
  public void postStop() {
    abandon();
  }
}
