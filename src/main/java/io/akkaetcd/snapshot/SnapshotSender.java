package io.akkaetcd.snapshot;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.Props;
import akka.actor.ReceiveTimeout;
import akka.actor.Status;
import akka.pattern.Patterns;
import com.google.protobuf.ByteString;
import io.akkaetcd.proto.peerpb.SnapshotAck;
import io.akkaetcd.proto.peerpb.SnapshotChunk;
import io.akkaetcd.raft.peer.PeerGate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Sends one follower a snapshot of this member's state machine (Raft §7, InstallSnapshot): a
 * capture of the applied state, streamed in chunks of about {@value #CHUNK_BYTES} bytes, each
 * acknowledged before the next goes (so a slow follower slows the sender, and memory holds one
 * chunk). Reading runs on this actor's thread, off the applier, from a LevelDB snapshot.
 *
 * <p>Ends when the follower acknowledges the last chunk (it has installed the snapshot), refuses
 * one, or does not answer in time; in every case the transfer's end is reported once, and the
 * leader's Raft core probes the follower again.
 */
final class SnapshotSender extends AbstractActor {
  static final long CHUNK_BYTES = 512 * 1024;
  /** A chunk not acknowledged in this time ends the transfer (the follower is gone or cut off). */
  private static final Duration CHUNK_TIMEOUT = Duration.ofSeconds(15);
  /** The last chunk's acknowledgement comes after the install, which rebuilds the key index. */
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(2);

  private final long to;
  private final long from;
  private final long term;
  private final ActorRef receiver;
  private final StateMachineSnapshots stateMachine;
  private final Runnable ended;
  private final PeerGate gate;
  private final long clusterId;
  private final long transferId = ThreadLocalRandom.current().nextLong();
  private java.util.concurrent.CompletionStage<StateMachineSnapshots.Capture> captured;

  private StateMachineSnapshots.Capture capture;
  private long seq = -1;
  private boolean last;
  private long bytesSent;

  static Props props(long to, long from, long term, ActorRef receiver, StateMachineSnapshots stateMachine,
      Runnable ended, PeerGate gate, long clusterId) {
    return Props.create(SnapshotSender.class,
            () -> new SnapshotSender(to, from, term, receiver, stateMachine, ended, gate, clusterId))
        .withDispatcher("akka.actor.default-blocking-io-dispatcher");
  }

  private SnapshotSender(long to, long from, long term, ActorRef receiver, StateMachineSnapshots stateMachine,
      Runnable ended, PeerGate gate, long clusterId) {
    this.clusterId = clusterId;
    this.to = to;
    this.from = from;
    this.term = term;
    this.receiver = receiver;
    this.stateMachine = stateMachine;
    this.ended = ended;
    this.gate = gate;
  }

  @Override
  public void preStart() {
    captured = stateMachine.capture();
    Patterns.pipe(captured, getContext().getDispatcher()).to(getSelf());
    getContext().setReceiveTimeout(CHUNK_TIMEOUT);
  }

  @Override
  public Receive createReceive() {
    return receiveBuilder()
        .match(StateMachineSnapshots.Capture.class, c -> {
          capture = c;
          if (c.export().appliedTerm() == 0) {
            // a store from before terms were recorded: its point cannot be named until it applies more
            stop("the store has not recorded the term of its applied entry yet");
            return;
          }
          log("sending a snapshot at {} (term {})", c.export().appliedIndex(), c.export().appliedTerm());
          sendNext();
        })
        .match(SnapshotAck.class, this::onAck)
        .match(ReceiveTimeout.class, t -> stop("no answer from the follower in time"))
        .match(Status.Failure.class, f -> stop("capture failed: " + f.cause()))
        .build();
  }

  private void onAck(SnapshotAck ack) {
    if (ack.getTransferId() != transferId || ack.getSeq() != seq) {
      return; // an answer to another transfer
    }
    if (!ack.getOk()) {
      stop("the follower refused it (it has caught up, or took another snapshot)");
    } else if (last) {
      log("the follower installed the snapshot ({} bytes in {} chunks)", bytesSent, seq + 1);
      getContext().stop(getSelf());
    } else {
      sendNext();
    }
  }

  private void sendNext() {
    seq++;
    List<Map.Entry<byte[], byte[]>> rows;
    try {
      rows = capture.export().next(CHUNK_BYTES);
      last = capture.export().exhausted();
    } catch (RuntimeException e) {
      stop("reading the store failed: " + e); // it was closed or replaced; never restart a transfer
      return;
    }
    SnapshotChunk.Builder chunk = SnapshotChunk.newBuilder().setTransferId(transferId).setSeq(seq)
        .setFrom(from).setTerm(term).setLast(last).setClusterId(clusterId);
    if (seq == 0) {
      chunk.setIndex(capture.export().appliedIndex()).setIndexTerm(capture.export().appliedTerm())
          .addAllMembers(capture.members()).addAllAttributes(capture.attributes());
    }
    for (Map.Entry<byte[], byte[]> row : rows) {
      chunk.addKeys(ByteString.copyFrom(row.getKey())).addValues(ByteString.copyFrom(row.getValue()));
      bytesSent += row.getKey().length + row.getValue().length;
    }
    if (!gate.blocked(to)) {
      receiver.tell(chunk.build(), getSelf());
    }
    getContext().setReceiveTimeout(last ? INSTALL_TIMEOUT : CHUNK_TIMEOUT);
  }

  private void stop(String why) {
    log("snapshot transfer abandoned: {}", why);
    getContext().stop(getSelf());
  }

  private void log(String format, Object... args) {
    getContext().getSystem().log().info("[snapshot to " + Long.toHexString(to) + "] " + format, args);
  }

  @Override
  public void postStop() {
    // Closes the export also when the capture completes after this actor stopped (closing twice is fine).
    captured.thenAccept(c -> c.export().close());
    ended.run();
  }
}
