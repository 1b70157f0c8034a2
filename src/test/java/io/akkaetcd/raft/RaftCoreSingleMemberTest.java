package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A lone voter: boot, commit, read index, restart from storage. */
class RaftCoreSingleMemberTest {
  static RaftConfig config(long applied) {
    return new RaftConfig(1, List.of(1L), List.of(), 10, 1, applied, 256, 1 << 20, true, true, new SplittableRandom(1));
  }

  /** Handles every Ready as the driver must: persist, then apply; returns the applied entries. */
  static List<Entry> drain(RaftCore core, MemoryStorage storage, List<ReadState> reads) {
    List<Entry> applied = new ArrayList<>();
    while (core.hasReady()) {
      Ready rd = core.ready();
      storage.append(rd.entries());
      if (rd.hardState() != null) {
        storage.setHardState(rd.hardState());
      }
      assertTrue(rd.messages().isEmpty(), "a lone member sends nothing");
      applied.addAll(rd.committedEntries());
      reads.addAll(rd.readStates());
      core.advance(rd);
    }
    return applied;
  }

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Test
  void campaignMakesALoneVoterLeaderAndItsProposalsCommit() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    assertThrows(ProposalDroppedException.class, () -> core.propose(List.of(b("early"))));
    core.campaign();
    assertEquals(StateRole.LEADER, core.role());
    assertEquals(1, core.term());
    List<ReadState> reads = new ArrayList<>();
    List<Entry> applied = drain(core, storage, reads);
    assertEquals(1, applied.size(), "the leader's no-op");
    assertTrue(applied.get(0).data().isEmpty());

    core.propose(List.of(b("a"), b("b")));
    applied = drain(core, storage, reads);
    assertEquals(List.of(b("a"), b("b")), applied.stream().map(Entry::data).toList());
    assertEquals(3, core.committedIndex());
    assertEquals(new HardState(1, 1, 3), storage.hardState());
  }

  @Test
  void readIndexWaitsForTheFirstCommitOfTheTerm() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    core.campaign();
    // Before the no-op is persisted and committed, the read must wait.
    Ready first = core.ready();
    core.readIndex(b("r1"));
    assertTrue(first.readStates().isEmpty());
    storage.append(first.entries());
    core.advance(first);
    List<ReadState> reads = new ArrayList<>();
    drain(core, storage, reads);
    assertEquals(1, reads.size());
    assertEquals(new ReadState(1, b("r1")), reads.get(0));
    core.readIndex(b("r2"));
    drain(core, storage, reads);
    assertEquals(new ReadState(1, b("r2")), reads.get(1));
  }

  @Test
  void restartRedeliversOnlyUnappliedCommittedEntries() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    core.campaign();
    core.propose(List.of(b("a"), b("b"), b("c")));
    drain(core, storage, new ArrayList<>());
    assertEquals(4, storage.hardState().commit());

    // The state machine had applied up to index 2 ("a") when the process died.
    RaftCore restarted = new RaftCore(config(2), storage);
    assertEquals(StateRole.FOLLOWER, restarted.role());
    assertEquals(1, restarted.term());
    Ready rd = restarted.ready();
    assertEquals(List.of(b("b"), b("c")), rd.committedEntries().stream().map(Entry::data).toList());
    storage.append(rd.entries());
    restarted.advance(rd);
    restarted.campaign();
    assertEquals(2, restarted.term());
    List<Entry> applied = drain(restarted, storage, new ArrayList<>());
    assertEquals(1, applied.size(), "only the new term's no-op");
    assertEquals(5, applied.get(0).index());
    assertNotNull(storage.hardState());
  }

  @Test
  void tickAloneElectsALoneVoter() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    for (int i = 0; i < 20 && core.role() != StateRole.LEADER; i++) {
      core.tick();
    }
    assertEquals(StateRole.LEADER, core.role());
  }

  @Test
  void theFirstReadyOfALeaderHoldsEverythingInDriverOrder() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    assertTrue(!core.hasReady(), "a fresh follower has nothing to do");
    core.campaign();
    Ready rd = core.ready();
    assertEquals(new SoftState(1, StateRole.LEADER), rd.softState());
    assertEquals(new HardState(1, 1, 1), rd.hardState());
    assertEquals(List.of(new Entry(1, 1, EntryType.NORMAL, ByteString.EMPTY)), rd.entries());
    assertEquals(rd.entries(), rd.committedEntries(), "persist these, then apply them");
    core.advance(rd);
    storage.append(rd.entries());
    storage.setHardState(rd.hardState());
    assertTrue(!core.hasReady());

    core.propose(List.of(b("x")));
    rd = core.ready();
    assertEquals(null, rd.softState(), "unchanged");
    assertEquals(new HardState(1, 1, 2), rd.hardState());
    assertEquals(List.of(Entry.normal(1, 2, b("x"))), rd.entries());
    assertEquals(List.of(Entry.normal(1, 2, b("x"))), rd.committedEntries());
  }

  @Test
  void readIndexWithoutALeaderIsRefused() {
    RaftCore core = new RaftCore(config(0), new MemoryStorage());
    assertThrows(ProposalDroppedException.class, () -> core.readIndex(b("r")));
  }

  @Test
  void aReadAfterRestartWaitsForTheNewTermsNoOp() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    core.campaign();
    core.propose(List.of(b("a")));
    drain(core, storage, new ArrayList<>());

    RaftCore restarted = new RaftCore(config(2), storage);
    restarted.campaign();
    restarted.readIndex(b("r"));
    List<ReadState> reads = new ArrayList<>();
    drain(restarted, storage, reads);
    assertEquals(List.of(new ReadState(3, b("r"))), reads, "the read index is the new term's no-op");
  }

  @Test
  void restartCommitsAPersistedButUncommittedTailAfterCampaigning() {
    // The journal holds entries 1..5 of term 1 but the last durable commit was 3, and the state
    // machine had applied 2.
    MemoryStorage storage = new MemoryStorage();
    List<Entry> log = new ArrayList<>();
    for (long i = 1; i <= 5; i++) {
      log.add(Entry.normal(1, i, b("e" + i)));
    }
    storage.append(log);
    storage.setHardState(new HardState(1, 1, 3));
    RaftCore core = new RaftCore(config(2), storage);
    assertEquals(3, core.committedIndex());
    List<Entry> applied = drain(core, storage, new ArrayList<>());
    assertEquals(List.of(b("e3")), applied.stream().map(Entry::data).toList(), "committed, not applied");
    core.campaign();
    applied = drain(core, storage, new ArrayList<>());
    assertEquals(List.of(4L, 5L, 6L), applied.stream().map(Entry::index).toList());
    assertEquals(new HardState(2, 1, 6), storage.hardState());
  }

  @Test
  void restartWithNothingAppliedRedeliversEveryCommittedEntry() {
    MemoryStorage storage = new MemoryStorage();
    RaftCore core = new RaftCore(config(0), storage);
    core.campaign();
    core.propose(List.of(b("a")));
    core.propose(List.of(b("b")));
    drain(core, storage, new ArrayList<>());
    RaftCore restarted = new RaftCore(config(0), storage);
    List<Entry> applied = drain(restarted, storage, new ArrayList<>());
    assertEquals(List.of(1L, 2L, 3L), applied.stream().map(Entry::index).toList());
    assertEquals(StateRole.FOLLOWER, restarted.role(), "no election before campaign or a timeout");
  }

  @Test
  void theVoteSurvivesARestart() {
    MemoryStorage storage = new MemoryStorage();
    storage.setHardState(new HardState(4, 7, 0));
    RaftCore core = new RaftCore(config(0), storage);
    assertEquals(4, core.term());
    assertTrue(!core.hasReady(), "nothing changed, so no hard state to persist again");
    core.campaign();
    assertEquals(5, core.term());
  }
}
