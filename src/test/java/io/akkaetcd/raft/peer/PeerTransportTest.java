package io.akkaetcd.raft.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.typed.ActorRef;
import io.akkaetcd.proto.raftpb.MessageType;
import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The receiving edge of the peer transport: only messages of this member's cluster reach Raft. */
class PeerTransportTest {
  private static final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void aMessageFromAnotherClusterIsDropped() {
    List<Message> delivered = new CopyOnWriteArrayList<>();
    ActorRef<RaftMessage> receiver = testKit.spawn(PeerTransport.receiver(delivered::add, PeerGate.OPEN, 7));
    RaftMessage vote = RaftMessage.newBuilder().setType(MessageType.REQUEST_VOTE).setFrom(2).setTo(1).build();
    receiver.tell(vote.toBuilder().setClusterId(8).setTerm(5).build()); // another cluster's
    receiver.tell(vote.toBuilder().setClusterId(7).setTerm(6).build());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (delivered.isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "nothing delivered");
      Thread.onSpinWait();
    }
    // Messages are handled in order: the first was looked at, and dropped, before the second.
    assertEquals(1, delivered.size());
    assertEquals(6, delivered.get(0).term());
  }
}
