package io.akkaetcd.raft.member;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.server.OwnSystemConfig;
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
import org.junit.jupiter.api.io.TempDir;

/** RaftMember on the real LevelDB journal: commit, group commit, read index, stop and respawn. */
class RaftMemberTest {
  @TempDir static Path tmp;

  private static final long ID = 0x1234;
  private static Path dir;
  private static ActorTestKit testKit;

  @BeforeAll
  static void start() throws IOException {
    dir = Files.createTempDirectory(tmp, "raft-member-test");
    Config config = ConfigFactory.parseMap(Map.of(
            "akka.persistence.journal.leveldb.dir", dir.resolve("wal").toString(),
            "akka.persistence.snapshot-store.local.dir", dir.resolve("snap").toString()))
        .withFallback(OwnSystemConfig.of(ConfigFactory.load()));
    testKit = ActorTestKit.create("RaftMemberTest", config);
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** Applied entries the test members keep in their logs. */
  private static final int KEPT = 1000;

  private record Member(ActorRef<RaftMember.Command> ref, RaftInbox inbox, TestProbe<List<Entry>> applied,
                        AtomicReference<RaftStatus> status) {}

  private Member spawn(String name, AtomicLong appliedIndex) {
    return spawn(name, appliedIndex, ID);
  }

  private Member spawn(String name, AtomicLong appliedIndex, long id) {
    return spawn(name, appliedIndex, id, () -> false);
  }

  private Member spawn(String name, AtomicLong appliedIndex, long id, java.util.function.BooleanSupplier diskFull) {
    TestProbe<List<Entry>> applied = testKit.createTestProbe();
    AtomicReference<RaftStatus> status = new AtomicReference<>(RaftStatus.INITIAL);
    RaftMember.Settings settings = new RaftMember.Settings(id, List.of(id), List.of(), Duration.ofMillis(100), 10,
        appliedIndex::get, () -> 0, appliedIndex::get, 100, KEPT).withDiskExhausted(diskFull);
    RaftInbox inbox = new RaftInbox();
    ActorRef<RaftMember.Command> ref = testKit.spawn(RaftMember.create(settings, inbox, m -> { },
        entries -> {
          appliedIndex.set(entries.get(entries.size() - 1).index());
          applied.getRef().tell(entries);
        },
        (requestId, error) -> { }, status), name);
    return new Member(ref, inbox, applied, status);
  }

  /** The member's published status once it satisfies {@code condition} (it is set just after applying). */
  private static RaftStatus awaitStatus(Member m, java.util.function.Predicate<RaftStatus> condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    RaftStatus s = m.status().get();
    while (!condition.test(s)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": " + s);
      }
      Thread.onSpinWait();
      s = m.status().get();
    }
    return s;
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
      m.inbox().propose(i, ByteString.copyFromUtf8("v" + i));
    }
    List<Entry> applied = awaitApplied(m.applied(), "v49");
    List<String> data = applied.stream().map(e -> e.data().toStringUtf8()).filter(s -> !s.isEmpty()).toList();
    assertEquals(50, data.size());
    assertEquals("v0", data.get(0));
    for (int i = 1; i < applied.size(); i++) {
      assertEquals(applied.get(i - 1).index() + 1, applied.get(i).index(), "applied in log order, no gaps");
    }
    awaitStatus(m, st -> st.role() == StateRole.LEADER, "the lone member leads");

    CompletableFuture<Long> readIndex = new CompletableFuture<>();
    m.inbox().readIndex(readIndex);
    assertTrue(readIndex.get(10, TimeUnit.SECONDS) >= applied.get(applied.size() - 1).index());

    long lastApplied = appliedIndex.get();
    long term = m.status().get().term();
    testKit.stop(m.ref());

    // The state machine had applied everything but the last 10 entries when the member stopped.
    appliedIndex.set(lastApplied - 10);
    Member again = spawn("m1-again", appliedIndex);
    again.inbox().propose(100, ByteString.copyFromUtf8("after-restart"));
    List<Entry> replayed = awaitApplied(again.applied(), "after-restart");
    assertEquals(lastApplied - 9, replayed.get(0).index(), "re-delivers only what was not applied");
    List<String> replayedData = replayed.stream().map(e -> e.data().toStringUtf8()).filter(s -> !s.isEmpty()).toList();
    assertEquals(List.of("v40", "v41", "v42", "v43", "v44", "v45", "v46", "v47", "v48", "v49", "after-restart"),
        replayedData);
    awaitStatus(again, st -> st.term() > term, "a new term after restart: the vote was persisted");
  }

  /** A full disk: nothing is persisted or applied (a LevelDB write would be SIGBUS) until there is room. */
  @Test
  void aMemberWhoseDiskIsFullAppliesNothingUntilItHasRoomAgain() {
    java.util.concurrent.atomic.AtomicBoolean full = new java.util.concurrent.atomic.AtomicBoolean();
    Member m = spawn("disk", new AtomicLong(), 0x5678, full::get);
    m.inbox().propose(1, ByteString.copyFromUtf8("before"));
    awaitApplied(m.applied(), "before");
    full.set(true);
    m.inbox().propose(2, ByteString.copyFromUtf8("while-full"));
    m.applied().expectNoMessage(Duration.ofSeconds(1));
    full.set(false);
    List<Entry> after = awaitApplied(m.applied(), "while-full");
    assertEquals(1, after.stream().filter(e -> e.data().toStringUtf8().equals("while-full")).count());
  }

  @Test
  void aLoneMemberKeepsABoundedLogAndRecoversFromItsSnapshot() {
    AtomicLong appliedIndex = new AtomicLong();
    long id = 0x5678;
    Member m = spawn("bounded", appliedIndex, id);
    // waves of 50, each applied before the next: at least one journal event per wave, so that the
    // 100-event snapshot interval passes a few times
    int proposals = KEPT + RaftMember.COMPACT_EVERY + 2000;
    List<Entry> applied = new ArrayList<>();
    for (int i = 0; i < proposals; i++) {
      m.inbox().propose(i, ByteString.copyFromUtf8("e" + i));
      if (i % 50 == 49 || i == proposals - 1) {
        applied = awaitApplied(m.applied(), "e" + i);
      }
    }
    long last = applied.get(applied.size() - 1).index();
    // one more round trip so that the status reflects the compaction after the last apply
    m.inbox().propose(proposals, ByteString.copyFromUtf8("last"));
    awaitApplied(m.applied(), "last");
    long first = awaitStatus(m, st -> st.firstLogIndex() > 1, "applied entries were dropped from memory").firstLogIndex();
    assertTrue(last + 1 - first <= KEPT + RaftMember.COMPACT_EVERY + 1,
        "at most the kept entries plus one compaction interval: " + (last + 1 - first));

    try (var snaps = Files.list(dir.resolve("snap"))) {
      assertTrue(snaps.anyMatch(f -> f.getFileName().toString().contains("raft-log-5678")),
          "the log was snapshotted (and the journal behind it trimmed)");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    // Restart: the log comes back from a snapshot (trimmed), and the 5 entries the state machine
    // had not applied are delivered again, in order, before a new one.
    long lastApplied = appliedIndex.get();
    testKit.stop(m.ref());
    appliedIndex.set(lastApplied - 5);
    Member again = spawn("bounded-again", appliedIndex, id);
    again.inbox().propose(proposals + 1, ByteString.copyFromUtf8("after-restart"));
    List<Entry> replayed = awaitApplied(again.applied(), "after-restart");
    assertEquals(lastApplied - 4, replayed.get(0).index(), "re-delivers only what was not applied");
    for (int i = 1; i < replayed.size(); i++) {
      assertEquals(replayed.get(i - 1).index() + 1, replayed.get(i).index(), "in log order, no gaps");
    }
    awaitStatus(again, st -> st.firstLogIndex() > 1, "recovered from a snapshot of the trimmed log");
  }

  @Test
  void theLogStartsOverWhereAnInstalledSnapshotEndsIfTheJournalLostIt() {
    io.akkaetcd.raft.MemoryStorage log = new io.akkaetcd.raft.MemoryStorage();
    log.append(List.of(Entry.normal(1, 1, ByteString.EMPTY), Entry.normal(1, 2, ByteString.EMPTY),
        Entry.normal(2, 3, ByteString.EMPTY)));
    assertNull(RaftMember.restartPoint(log, 3, 2), "the log holds the applied entry");
    assertNull(RaftMember.restartPoint(log, 0, 0), "nothing applied");
    assertNull(RaftMember.restartPoint(log, 3, 0), "a store that never recorded terms");
    assertEquals(new io.akkaetcd.raft.SnapshotPoint(10, 3), RaftMember.restartPoint(log, 10, 3),
        "applied past the end of the log: a snapshot was installed");
    assertEquals(new io.akkaetcd.raft.SnapshotPoint(3, 3), RaftMember.restartPoint(log, 3, 3),
        "the log holds another entry at the applied index");
  }
}
