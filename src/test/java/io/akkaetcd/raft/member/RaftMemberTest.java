package io.akkaetcd.raft.member;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.raft.Entry;
import io.akkaetcd.raft.StateRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RaftMember on the real LevelDB journal: commit, group commit, read index, stop and respawn. */
class RaftMemberTest {
  private static final long ID = 0x1234;
  private static Path dir;
  private static ActorTestKit testKit;

  @BeforeAll
  static void start() throws IOException {
    dir = Files.createTempDirectory("raft-member-test");
    Config config = ConfigFactory.parseMap(Map.of(
            "akka.persistence.journal.leveldb.dir", dir.resolve("wal").toString(),
            "akka.persistence.snapshot-store.local.dir", dir.resolve("snap").toString()))
        .withFallback(ConfigFactory.load());
    testKit = ActorTestKit.create("RaftMemberTest", config);
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private record Member(ActorRef<RaftMember.Command> ref, TestProbe<List<Entry>> applied,
                        AtomicReference<RaftStatus> status) {}

  private Member spawn(String name, AtomicLong appliedIndex) {
    TestProbe<List<Entry>> applied = testKit.createTestProbe();
    AtomicReference<RaftStatus> status = new AtomicReference<>(RaftStatus.INITIAL);
    RaftMember.Settings settings = new RaftMember.Settings(ID, List.of(ID), Duration.ofMillis(100), 10,
        appliedIndex::get);
    ActorRef<RaftMember.Command> ref = testKit.spawn(RaftMember.create(settings,
        entries -> {
          appliedIndex.set(entries.get(entries.size() - 1).index());
          applied.getRef().tell(entries);
        },
        (id, error) -> { }, status), name);
    return new Member(ref, applied, status);
  }

  /** Receives applied entries until one with the given data arrives; returns all received. */
  private static List<Entry> awaitApplied(TestProbe<List<Entry>> probe, String data) {
    List<Entry> all = new ArrayList<>();
    while (all.stream().noneMatch(e -> e.data().toStringUtf8().equals(data))) {
      all.addAll(probe.receiveMessage(Duration.ofSeconds(10)));
    }
    return all;
  }

  @Test
  void commitsProposalsDurablyAndReplaysOnlyWhatWasNotApplied() throws Exception {
    AtomicLong appliedIndex = new AtomicLong();
    Member m = spawn("m1", appliedIndex);
    for (int i = 0; i < 50; i++) {
      m.ref().tell(new RaftMember.Propose(i, ByteString.copyFromUtf8("v" + i)));
    }
    List<Entry> applied = awaitApplied(m.applied(), "v49");
    List<String> data = applied.stream().map(e -> e.data().toStringUtf8()).filter(s -> !s.isEmpty()).toList();
    assertEquals(50, data.size());
    assertEquals("v0", data.get(0));
    for (int i = 1; i < applied.size(); i++) {
      assertEquals(applied.get(i - 1).index() + 1, applied.get(i).index(), "applied in log order, no gaps");
    }
    assertEquals(StateRole.LEADER, m.status().get().role());

    CompletableFuture<Long> readIndex = new CompletableFuture<>();
    m.ref().tell(new RaftMember.ReadIndex(readIndex));
    assertTrue(readIndex.get(10, TimeUnit.SECONDS) >= applied.get(applied.size() - 1).index());

    long lastApplied = appliedIndex.get();
    long term = m.status().get().term();
    testKit.stop(m.ref());

    // The state machine had applied everything but the last 10 entries when the member stopped.
    appliedIndex.set(lastApplied - 10);
    Member again = spawn("m1-again", appliedIndex);
    again.ref().tell(new RaftMember.Propose(100, ByteString.copyFromUtf8("after-restart")));
    List<Entry> replayed = awaitApplied(again.applied(), "after-restart");
    assertEquals(lastApplied - 9, replayed.get(0).index(), "re-delivers only what was not applied");
    List<String> replayedData = replayed.stream().map(e -> e.data().toStringUtf8()).filter(s -> !s.isEmpty()).toList();
    assertEquals(List.of("v40", "v41", "v42", "v43", "v44", "v45", "v46", "v47", "v48", "v49", "after-restart"),
        replayedData);
    assertTrue(again.status().get().term() > term, "a new term after restart: the vote was persisted");
  }
}
