package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A follower forwards proposals to its leader: those gathered between two Readys go as one MsgProp. */
class RaftCoreForwardTest {
  private static RaftCore follower(long id) {
    RaftCore core = new RaftCore(new RaftConfig(id, List.of(1L, 2L, 3L), List.of(), 10, 1, 0, 256, 1 << 20,
        true, true, new SplittableRandom(1)), new MemoryStorage());
    core.step(Message.of(MessageType.HEARTBEAT).from(1).to(id).term(2).build());
    assertEquals(1, core.leader());
    core.advance(core.ready()); // the heartbeat's answer
    return core;
  }

  private static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static List<Message> proposals(Ready rd) {
    return rd.messages().stream().filter(m -> m.type() == MessageType.PROPOSE).toList();
  }

  private static List<String> data(Message m) {
    return m.entries().stream().map(e -> e.data().toStringUtf8()).toList();
  }

  @Test
  void proposalsBetweenTwoReadysGoAsOneMessageInOrder() {
    RaftCore core = follower(2);
    core.propose(List.of(b("a")));
    core.propose(List.of(b("b"), b("c")));
    Ready rd = core.ready();
    List<Message> props = proposals(rd);
    assertEquals(1, props.size());
    Message m = props.get(0);
    assertEquals(1, m.to());
    assertEquals(2, m.from());
    assertEquals(0, m.term(), "a forward is bound to no term");
    assertEquals(List.of("a", "b", "c"), data(m));
    assertTrue(m.isForward());

    // A Ready already handed out is never changed: the next proposal is a new message.
    core.propose(List.of(b("d")));
    assertEquals(List.of("a", "b", "c"), data(proposals(rd).get(0)));
    core.advance(rd);
    List<Message> next = proposals(core.ready());
    assertEquals(1, next.size());
    assertEquals(List.of("d"), data(next.get(0)));
  }

  @Test
  void aForwardKeepsItsOriginAndAConfChangeTravelsAlone() {
    RaftCore core = follower(2);
    core.propose(List.of(b("a")));
    core.proposeConfChange(b("cc"));
    core.propose(List.of(b("b")));
    // Forwarded on by this follower for member 3: its own origin, not joined to 2's.
    core.step(Message.of(MessageType.PROPOSE).from(3).to(2)
        .entries(List.of(Entry.normal(0, 0, b("x")))).build());
    List<Message> props = proposals(core.ready());
    assertEquals(4, props.size());
    assertEquals(List.of("a"), data(props.get(0)));
    assertEquals(EntryType.CONF_CHANGE, props.get(1).entries().get(0).type());
    assertEquals(List.of("b"), data(props.get(2)), "not joined to 'a' past the change: order is kept");
    assertEquals(3, props.get(3).from());
    assertEquals(List.of("x"), data(props.get(3)));
  }

  @Test
  void theLeaderAppendsAJoinedForwardAsOneBatch() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore leader = new RaftCore(new RaftConfig(1, List.of(1L, 2L, 3L), List.of(), 10, 1, 0, 256, 1 << 20,
        true, true, new SplittableRandom(1)), storage);
    leader.campaign();
    leader.step(Message.of(MessageType.REQUEST_PRE_VOTE_RESPONSE).from(2).to(1).term(1).build());
    leader.step(Message.of(MessageType.REQUEST_VOTE_RESPONSE).from(2).to(1).term(1).build());
    assertEquals(StateRole.LEADER, leader.role());
    Ready first = leader.ready();
    storage.append(first.entries()); // its no-op at index 1, durable as the driver makes it
    leader.advance(first);
    RaftCore follower = follower(2);
    follower.propose(List.of(b("a")));
    follower.propose(List.of(b("b")));
    Message forward = proposals(follower.ready()).get(0);
    leader.step(forward);
    Ready rd = leader.ready();
    assertEquals(List.of("a", "b"), rd.entries().stream().map(e -> e.data().toStringUtf8()).toList());
    assertEquals(List.of(2L, 3L), rd.entries().stream().map(Entry::index).toList());
  }
}
