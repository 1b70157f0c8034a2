package io.akkaetcd.raft.member;

import io.akkaetcd.logs.GoDurations;
import net.logstash.logback.argument.StructuredArguments;
import akka.actor.typed.Behavior;
import akka.actor.typed.SupervisorStrategy;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.TimerScheduler;
import akka.persistence.typed.PersistenceId;
import akka.persistence.typed.RecoveryCompleted;
import akka.persistence.typed.javadsl.CommandHandler;
import akka.persistence.typed.javadsl.Effect;
import akka.persistence.typed.javadsl.EventHandler;
import akka.persistence.typed.javadsl.EventSourcedBehavior;
import akka.persistence.typed.SnapshotAdapter;
import akka.persistence.typed.javadsl.RetentionCriteria;
import akka.persistence.typed.javadsl.SignalHandler;
import com.google.protobuf.ByteString;
import io.akkaetcd.proto.raftpb.ConfChange;
import io.akkaetcd.proto.raftpb.ConfChangeType;
import io.akkaetcd.proto.raftpb.LogAppended;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.raft.ConfChangeKind;
import io.akkaetcd.raft.Entry;
import io.akkaetcd.errors.StartupException;
import io.akkaetcd.raft.HardState;
import io.akkaetcd.raft.MemoryStorage;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.ProposalDroppedException;
import io.akkaetcd.raft.RaftConfig;
import io.akkaetcd.raft.RaftCore;
import io.akkaetcd.raft.ReadState;
import io.akkaetcd.raft.Ready;
import io.akkaetcd.raft.SnapshotPoint;
import io.akkaetcd.raft.StateRole;
import io.akkaetcd.raft.storage.JournalCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * The actor that drives one member's {@link RaftCore} and persists its log in the Akka
 * Persistence journal (LevelDB, fsync on).
 *
 * <p>Every Ready is handled in the order etcd's raft requires: first its entries and hard state
 * are persisted as one journal event (one write, one fsync), then its messages are sent, its
 * committed entries are handed to the applier in log order, its read states answered, and only
 * then is the core advanced. Client requests wait in the {@link RaftInbox} while a journal write
 * is in flight (the actor itself gets one Flush for them); the next Flush proposes all of them
 * together, so under load many client requests share one fsync (group commit).
 *
 * <p>Invariants: the core and the in-memory log are confined to this actor; nothing is applied
 * before it is durable; a proposal is never acknowledged here (the applier does that after
 * applying), only failed when the core drops it.
 */
public final class RaftMember
    extends EventSourcedBehavior<RaftMember.Command, LogAppended, RaftMember.Log> {

  /** The actor's protocol. */
  public sealed interface Command {}

  private enum Tick implements Command { INSTANCE }

  /** There are requests in the {@link RaftInbox}. */
  enum Flush implements Command { INSTANCE }

  private enum HandleReady implements Command { INSTANCE }

  /** The persisted log held in memory: the journal's state, rebuilt by replay. */
  public static final class Log {
    final MemoryStorage storage = new MemoryStorage();
  }

  /**
   * What a member needs to know to run.
   *
   * @param appliedIndex the state machine's applied index: raft re-delivers what comes after it
   * @param appliedTerm the term of the entry at that index
   * @param durableAppliedIndex the applied index that is on disk for sure: the log (in memory, and
   *     the journal behind snapshots) may drop entries up to it
   * @param snapshotEveryEvents the member snapshots its log every this many journal events and
   *     deletes the events before the older of its last two snapshots
   * @param catchUpEntries applied entries kept in the log for followers that lag a little (etcd's
   *     SnapshotCatchUpEntries); one further behind is sent a snapshot of the state machine
   * @param installedIndex the index of the last leader's snapshot installed in the state machine, 0 if none
   * @param journalPluginId the Akka Persistence journal plugin of the log ("": the system's default)
   * @param snapshotPluginId the snapshot store plugin of the log's snapshots ("": the system's default)
   */
  public record Settings(long memberId, List<Long> voters, List<Long> learners, Duration heartbeatInterval, int electionTicks,
                         LongSupplier appliedIndex, LongSupplier appliedTerm, LongSupplier durableAppliedIndex,
                         int snapshotEveryEvents, int catchUpEntries, LongSupplier installedIndex,
                         String journalPluginId, String snapshotPluginId, BooleanSupplier diskExhausted) {
    public Settings(long memberId, List<Long> voters, List<Long> learners, Duration heartbeatInterval, int electionTicks,
        LongSupplier appliedIndex, LongSupplier appliedTerm, LongSupplier durableAppliedIndex,
        int snapshotEveryEvents, int catchUpEntries, LongSupplier installedIndex) {
      this(memberId, voters, learners, heartbeatInterval, electionTicks, appliedIndex, appliedTerm, durableAppliedIndex,
          snapshotEveryEvents, catchUpEntries, installedIndex, "", "", () -> false);
    }

    public Settings(long memberId, List<Long> voters, List<Long> learners, Duration heartbeatInterval, int electionTicks,
        LongSupplier appliedIndex, LongSupplier appliedTerm, LongSupplier durableAppliedIndex,
        int snapshotEveryEvents, int catchUpEntries) {
      this(memberId, voters, learners, heartbeatInterval, electionTicks, appliedIndex, appliedTerm, durableAppliedIndex,
          snapshotEveryEvents, catchUpEntries, () -> 0);
    }

    /** These settings with the journal and snapshot store plugins at these ids ("" is the system's default). */
    public Settings withPersistencePlugins(String journal, String snapshots) {
      return new Settings(memberId, voters, learners, heartbeatInterval, electionTicks, appliedIndex, appliedTerm,
          durableAppliedIndex, snapshotEveryEvents, catchUpEntries, installedIndex, journal, snapshots, diskExhausted);
    }

    /**
     * These settings with {@code exhausted} telling when the data directory's disk has no room
     * left for a write: the member then takes no Ready (nothing persisted, sent or applied).
     */
    public Settings withDiskExhausted(BooleanSupplier exhausted) {
      return new Settings(memberId, voters, learners, heartbeatInterval, electionTicks, appliedIndex, appliedTerm,
          durableAppliedIndex, snapshotEveryEvents, catchUpEntries, installedIndex, journalPluginId, snapshotPluginId,
          exhausted);
    }
  }

  /**
   * @param inbox where client requests come from: proposals and read-index requests
   * @param send sends a message to another member (after the Ready it came with is durable)
   * @param applier gets committed entries, in log order
   * @param failProposal fails a proposal the core dropped (no leader)
   */
  public static Behavior<Command> create(Settings settings, RaftInbox inbox, Consumer<Message> send,
      Consumer<List<Entry>> applier, BiConsumer<Long, Throwable> failProposal, AtomicReference<RaftStatus> status) {
    return create(settings, inbox, send, applier, failProposal, status, () -> { });
  }

  /**
   * As above; {@code leaderChanged} runs each time this member learns of a leader other than the
   * last it knew (etcd's leader_changes_seen_total: A, no leader, A counts twice).
   */
  public static Behavior<Command> create(Settings settings, RaftInbox inbox, Consumer<Message> send,
      Consumer<List<Entry>> applier, BiConsumer<Long, Throwable> failProposal, AtomicReference<RaftStatus> status,
      Runnable leaderChanged) {
    return Behaviors.<Command>supervise(Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
              inbox.attach(ctx.getSelf());
              // Akka Persistence publishes every persisted event to the system's event stream
              // unless told not to (it is for Replicated Event Sourcing); nobody here listens, and
              // each publication woke a default-dispatcher thread per journal write.
              // (The Scala DSL's behaviour is a trait over a class, which Java cannot see: cast.)
              @SuppressWarnings("unchecked")
              Behavior<Command> member = (Behavior<Command>) (Object) new RaftMember(ctx, timers, settings,
                  inbox, send, applier, failProposal, status, leaderChanged).createEventSourcedBehavior().withEventPublishing(false);
              return member;
            })))
        .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2));
  }

  private final ActorContext<Command> ctx;
  private final TimerScheduler<Command> timers;
  private final Settings settings;
  private final RaftInbox inbox;
  private final Consumer<Message> send;
  private final Consumer<List<Entry>> applier;
  private final BiConsumer<Long, Throwable> failProposal;
  private final AtomicReference<RaftStatus> status;
  private final Runnable leaderChanged;

  /** Created when the journal is replayed; commands are stashed by Akka Persistence until then. */
  private RaftCore core;
  /** Read batches sent to the core, by the request context that will come back in a ReadState. */
  private final Map<ByteString, ReadBatch> readBatches = new HashMap<>();
  private long nextReadContext = 1;
  /** Ticks so far: a read batch not answered after {@link #readRetryTicks} is asked again. */
  private long ticks;

  /** Reads waiting for one read index, asked at tick {@code askedAt}. */
  private record ReadBatch(List<CompletableFuture<Long>> waiters, long askedAt) {}

  /**
   * A read index not answered within 500 ms is asked again under a new context (etcd's
   * readIndexRetryTime): the request or its answer may have been lost with a leader or a link,
   * and otherwise its reads would wait for the request timeout.
   */
  private long readRetryTicks() {
    return Math.max(1, 500 / Math.max(1, settings.heartbeatInterval().toMillis()));
  }
  private boolean handleReadyScheduled;
  /** Appends in flight to one follower before the leader waits for an answer (etcd's MaxInflightMsgs). */
  static final int MAX_INFLIGHT_APPENDS = 256;
  /** Entry bytes in one append message (etcd's MaxSizePerMsg); one larger entry still goes alone. */
  public static final long MAX_APPEND_BYTES = 1024 * 1024;
  /** etcd's SnapshotCatchUpEntries: applied entries a leader keeps for followers that lag a little. */
  public static final int CATCH_UP_ENTRIES = 5000;
  /** The in-memory log is compacted when this many applied entries have piled up beyond the kept ones. */
  static final int COMPACT_EVERY = 2_000;
  /**
   * Where the log must start over before anything else is written: set at recovery when the state
   * machine is ahead of the journal (a crash after a snapshot was installed and before the journal
   * recorded it); written with the next event.
   */
  private SnapshotPoint recoveredRestart;

  /** The hard state as the journal has it: term or vote changes against it must be written first. */
  private HardState persistedHard;
  /** Whether the last Ready was left pending for a full disk (logged once per halt). */
  private boolean diskHalted;

  private RaftMember(ActorContext<Command> ctx, TimerScheduler<Command> timers, Settings settings,
      RaftInbox inbox, Consumer<Message> send, Consumer<List<Entry>> applier,
      BiConsumer<Long, Throwable> failProposal, AtomicReference<RaftStatus> status, Runnable leaderChanged) {
    super(PersistenceId.ofUniqueId("raft-log-" + Long.toHexString(settings.memberId())));
    this.ctx = ctx;
    this.timers = timers;
    this.settings = settings;
    this.inbox = inbox;
    this.send = send;
    this.applier = applier;
    this.failProposal = failProposal;
    this.status = status;
    this.leaderChanged = leaderChanged;
  }

  @Override
  public String journalPluginId() {
    return settings.journalPluginId();
  }

  @Override
  public String snapshotPluginId() {
    return settings.snapshotPluginId();
  }

  @Override
  public Log emptyState() {
    return new Log();
  }

  private boolean loneVoter() {
    return settings.voters().size() == 1 && settings.voters().get(0) == settings.memberId();
  }

  /**
   * The journal is trimmed: a snapshot of the log (hard state, compaction point, the entries after
   * it) every {@code snapshotEveryEvents} events, and the events before the older of the last two
   * snapshots deleted, so a restart replays a bounded journal. (These are Akka Persistence
   * snapshots of the log; a follower too far behind gets a snapshot of the state machine.)
   */
  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(settings.snapshotEveryEvents(), 2).withDeleteEventsOnSnapshot();
  }

  /** Snapshots are the log as a protobuf {@code LogSnapshot}, serialized like the events. */
  @Override
  public SnapshotAdapter<Log> snapshotAdapter() {
    return new SnapshotAdapter<>() {
      @Override
      public Object toJournal(Log state) {
        return JournalCodec.toSnapshot(state.storage);
      }

      @Override
      public Log fromJournal(Object from) {
        Log log = new Log();
        JournalCodec.restore((io.akkaetcd.proto.raftpb.LogSnapshot) from, log.storage);
        return log;
      }
    };
  }

  @Override
  public EventHandler<Log, LogAppended> eventHandler() {
    return (log, event) -> {
      JournalCodec.applyTo(event, log.storage);
      return log;
    };
  }

  @Override
  public SignalHandler<Log> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), this::onRecovered)
        .onSignal(akka.persistence.typed.RecoveryFailed.class, (log, failed) -> ctx.getLog().error("{}",
            StartupException.damaged(journalDir(), "the raft log cannot be read back from it ("
                + failed.getFailure() + ")").getMessage()))
        .build();
  }

  private void onRecovered(Log log) {
    // Applied index as the state machine has it durably: raft re-delivers only what comes after.
    long applied = settings.appliedIndex().getAsLong();
    recoveredRestart = restartPoint(log.storage, applied, settings.appliedTerm().getAsLong());
    if (recoveredRestart != null) {
      warnAhead(log.storage, applied);
      log.storage.resetTo(recoveredRestart.index(), recoveredRestart.term());
    }
    // a new member, or one on a restored store: the first election is at term 2, as in etcd
    log.storage.bootstrap();
    RaftConfig config = new RaftConfig(settings.memberId(), settings.voters(), settings.learners(), settings.electionTicks(), 1,
        applied, MAX_INFLIGHT_APPENDS, MAX_APPEND_BYTES, true, true, RandomGenerator.of("L64X128MixRandom"));
    core = new RaftCore(config, log.storage);
    persistedHard = log.storage.hardState();
    ctx.getLog().info("{} recovered raft log [first={}, last={}, term={}, commit={}, applied={}]",
        Long.toHexString(settings.memberId()), log.storage.firstIndex(), log.storage.lastIndex(),
        log.storage.hardState().term(), log.storage.hardState().commit(), applied);
    if (loneVoter()) {
      // A lone voter need not wait an election timeout: it is the only one that can win.
      core.campaign();
    }
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.heartbeatInterval());
    scheduleHandleReady();
  }

  /**
   * The state machine applied entries the journal does not hold. Legitimate only right after a
   * leader's snapshot was installed (the crash came before the journal recorded it: then the
   * store applied nothing since the install); otherwise the journal lost entries it had synced.
   */
  private void warnAhead(MemoryStorage storage, long applied) {
    String id = Long.toHexString(settings.memberId());
    if (applied == settings.installedIndex().getAsLong() && storage.lastIndex() == 0) {
      // a store a restore wrote (or a snapshot installed before the journal recorded anything)
      ctx.getLog().info("{} starts its raft log after the store's snapshot point (index {}, term {})",
          id, applied, recoveredRestart.term());
      return;
    }
    if (applied == settings.installedIndex().getAsLong()) {
      ctx.getLog().warn("{} the state machine (applied {} at term {}) is ahead of the raft log [first={}, last={}]: "
          + "a snapshot was installed; the log starts over after it", id, applied, recoveredRestart.term(),
          storage.firstIndex(), storage.lastIndex());
      return;
    }
    ctx.getLog().warn("{} the raft journal {} is damaged: it ends at index {} but the state machine applied up to {},"
        + " so entries it had written are lost; going on from the state machine's index, but a vote this member"
        + " gave may be lost with them. {}", id, journalDir(), storage.lastIndex(), applied, StartupException.RECOVERY);
  }

  /** Where the journal is: Akka Persistence's LevelDB, under {@code member/wal}. */
  private Path journalDir() {
    return Path.of(ctx.getSystem().settings().config().getString("akka.persistence.journal.leveldb.dir"));
  }

  /**
   * Where the log must start over at recovery, or null: when the state machine applied an entry
   * the log does not hold, or holds with another term, it was replaced by a snapshot whose
   * journal record was lost in a crash; the snapshot is committed state, so the log follows it.
   */
  static SnapshotPoint restartPoint(MemoryStorage storage, long applied, long appliedTerm) {
    if (applied == 0 || appliedTerm == 0 || applied < storage.firstIndex() - 1) {
      return null; // nothing applied, a store from before terms were recorded, or compacted past it
    }
    if (applied <= storage.lastIndex() && storage.term(applied) == appliedTerm) {
      return null;
    }
    return new SnapshotPoint(applied, appliedTerm);
  }

  @Override
  public CommandHandler<Command, LogAppended, Log> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Flush.class, this::onFlush)
        .onCommand(Tick.class, this::onTick)
        .onCommand(HandleReady.class, this::onHandleReady)
        .build();
  }

  private Effect<LogAppended, Log> onTick(Log log, Tick t) {
    core.tick();
    ticks++;
    if (!readBatches.isEmpty()) {
      retryStaleReads();
    }
    return handleReady();
  }

  private void retryStaleReads() {
    List<ByteString> stale = readBatches.entrySet().stream()
        .filter(e -> ticks - e.getValue().askedAt() >= readRetryTicks()).map(Map.Entry::getKey).toList();
    for (ByteString context : stale) {
      askReadIndex(readBatches.remove(context).waiters());
    }
  }

  /** Asks one read index for {@code waiters}; with no leader to ask they fail with "no leader". */
  private void askReadIndex(List<CompletableFuture<Long>> waiters) {
    ByteString context = ByteString.copyFromUtf8(Long.toString(nextReadContext++));
    try {
      core.readIndex(context);
      readBatches.put(context, new ReadBatch(waiters, ticks));
    } catch (ProposalDroppedException e) {
      // no leader to ask (an election is on): the clients get "no leader" and retry
      Throwable error = EtcdError.NO_LEADER.exception();
      waiters.forEach(waiter -> waiter.completeExceptionally(error));
    }
  }

  private Effect<LogAppended, Log> onHandleReady(Log log, HandleReady h) {
    handleReadyScheduled = false;
    return handleReady();
  }

  /**
   * Steps every message from peers, then proposes every gathered proposal as one batch and asks one
   * read index for every gathered read.
   */
  private Effect<LogAppended, Log> onFlush(Log log, Flush f) {
    inbox.flushing();
    for (Message m : inbox.drainMessages()) {
      core.step(m);
    }
    for (long transferee : inbox.drainTransfers()) {
      core.transferLeadership(transferee);
    }
    for (long to : inbox.drainSnapshotsSent()) {
      core.reportSnapshot(to);
    }
    for (RaftInbox.SnapshotInstalled s : inbox.drainSnapshotsInstalled()) {
      if (core.installSnapshot(s.from(), s.term(), s.point(), s.voters(), s.learners())) {
        ctx.getLog().info("{} restored its log from a snapshot at {} (term {}) sent by {}",
            Long.toHexString(settings.memberId()), s.point().index(), s.point().term(), Long.toHexString(s.from()));
      }
    }
    for (RaftInbox.Proposal change : inbox.drainConfChanges()) {
      try {
        core.proposeConfChange(change.data());
      } catch (ProposalDroppedException e) {
        EtcdError error = core.leader() == 0
            ? EtcdError.NO_LEADER : EtcdError.UNHEALTHY;
        failProposal.accept(change.requestId(), error.exception());
      }
    }
    List<RaftInbox.Proposal> proposals = inbox.drainProposals();
    List<CompletableFuture<Long>> reads = inbox.drainReads();
    if (!proposals.isEmpty()) {
      try {
        core.propose(proposals.stream().map(RaftInbox.Proposal::data).toList());
      } catch (ProposalDroppedException e) {
        Throwable error = EtcdError.NO_LEADER.exception();
        proposals.forEach(p -> failProposal.accept(p.requestId(), error));
      }
    }
    if (!reads.isEmpty()) {
      askReadIndex(reads);
    }
    return handleReady();
  }

  /** etcd's raft node.go lines for a leader change, which operators alert on. */
  private void logLeaderChange(long was, long now) {
    String self = Long.toHexString(settings.memberId());
    if (was == 0) {
      ctx.getLog().info("raft.node: {} elected leader {} at term {}", self, Long.toHexString(now), core.term());
    } else if (now == 0) {
      ctx.getLog().info("raft.node: {} lost leader {} at term {}", self, Long.toHexString(was), core.term());
    } else {
      ctx.getLog().info("raft.node: {} changed leader from {} to {} at term {}", self, Long.toHexString(was),
          Long.toHexString(now), core.term());
    }
  }

  private Effect<LogAppended, Log> handleReady() {
    if (!core.hasReady()) {
      return Effect().none();
    }
    if (settings.diskExhausted().getAsBoolean()) {
      // A full disk: LevelDB's write would be a SIGBUS. Like a member whose disk stalls, this one
      // neither persists nor acknowledges, sends nor applies; the core keeps what is pending and
      // the next tick tries again (a follower lags, a leader goes silent and is replaced).
      if (!diskHalted) {
        diskHalted = true;
        ctx.getLog().warn("{} stopped writing its raft log: the disk of its data directory is full",
            Long.toHexString(settings.memberId()));
      }
      return Effect().none();
    }
    if (diskHalted) {
      diskHalted = false;
      ctx.getLog().info("{} writes its raft log again: the disk has room", Long.toHexString(settings.memberId()));
    }
    Ready rd = core.ready();
    if (rd.softState() != null && rd.softState().role() != status.get().role()) {
      ctx.getLog().info("{} became {} at term {} (leader {})", Long.toHexString(settings.memberId()),
          rd.softState().role(), core.term(), Long.toHexString(rd.softState().leader()));
    }
    if (rd.softState() != null && rd.softState().leader() != status.get().leader()) {
      logLeaderChange(status.get().leader(), rd.softState().leader());
    }
    // A leader sends its appends while it writes them itself (Raft thesis §10.2.1): it counts
    // itself towards a commit at once, but applies, and so answers clients, only after its own
    // write, and what it sends is not an answer anyone relies on for safety. Everyone else sends
    // only once the Ready is durable: a vote or an append acknowledged to a peer must survive a
    // crash (Raft §5.1, "before responding to RPCs").
    // A forwarded proposal or read index is no acknowledgement either: a follower sends it at
    // once, so a client's write does not wait for the follower's own fsync before the leader sees it.
    boolean sendFirst = core.role() == StateRole.LEADER;
    for (Message m : rd.messages()) {
      if (sendFirst || m.isForward()) {
        send.accept(m);
      }
    }
    if (JournalCodec.mustPersist(rd, persistedHard) || recoveredRestart != null) {
      if (rd.hardState() != null) {
        persistedHard = rd.hardState();
      }
      SnapshotPoint restart = rd.snapshot() != null ? rd.snapshot() : recoveredRestart;
      recoveredRestart = null;
      long writeStart = System.nanoTime();
      return Effect().persist(JournalCodec.toEvent(rd, restart)).thenRun(log -> {
        warnIfSlowSync(writeStart);
        afterPersist(log, rd, sendFirst);
      });
    }
    return Effect().none().thenRun(log -> afterPersist(log, rd, sendFirst));
  }

  /** etcd's wal warnSyncDuration: a journal write and its fsync that took a second or more. */
  private static final long WARN_SYNC_NANOS = 1_000_000_000L;

  /** etcd's "slow fdatasync" warning, for the journal write of one Ready (written and synced together). */
  private void warnIfSlowSync(long startNanos) {
    long took = System.nanoTime() - startNanos;
    if (took >= WARN_SYNC_NANOS) {
      ctx.getLog().warn("slow fdatasync {} {}", StructuredArguments.kv("took", GoDurations.format(took)),
          StructuredArguments.kv("expected-duration", GoDurations.format(WARN_SYNC_NANOS)));
    }
  }

  /** Everything a Ready asks for after its entries are durable, then advance (etcd raft's order). */
  private void afterPersist(Log log, Ready rd, boolean sent) {
    if (!sent) {
      for (Message m : rd.messages()) {
        if (!m.isForward()) {
          send.accept(m);
        }
      }
    }
    if (!rd.committedEntries().isEmpty()) {
      // The core's configuration follows a change as soon as it is committed; the applier then
      // records the member list and answers the proposer.
      for (Entry e : rd.committedEntries()) {
        if (e.type() == io.akkaetcd.raft.EntryType.CONF_CHANGE) {
          applyConfChange(e);
        }
      }
      applier.accept(rd.committedEntries());
    }
    for (ReadState rs : rd.readStates()) {
      ReadBatch batch = readBatches.remove(rs.requestCtx());
      if (batch != null) {
        batch.waiters().forEach(f -> f.complete(rs.index()));
      }
    }
    core.advance(rd);
    compactAppliedEntries(log.storage);
    RaftStatus before = status.get();
    boolean newLeader = core.leader() != 0 && core.leader() != before.leader();
    long electedAt = newLeader ? System.nanoTime() : before.leaderElectedNanos();
    status.set(new RaftStatus(core.term(), core.leader(), core.role(), core.committedIndex(),
        log.storage.firstIndex(), electedAt, learnerMatches()));
    if (newLeader) {
      leaderChanged.run(); // after the status: whoever it wakes sees the leader there
    }
    if (core.role() != StateRole.LEADER && core.leader() == 0) {
      failPendingReads();
    }
    if (core.hasReady()) {
      scheduleHandleReady();
    }
  }

  /**
   * Drops applied entries from the in-memory log, so memory does not grow with the history; the
   * last {@code catchUpEntries} stay for followers that lag a little, and one further behind is
   * sent a snapshot of the state machine. The state machine's durable applied index bounds it, so
   * nothing is dropped that a crash could still need: a snapshot of this log never lacks an entry
   * the store might lose.
   */
  private void compactAppliedEntries(MemoryStorage storage) {
    // Bounded by the core's applied index too: right after a snapshot install the store is ahead
    // of the core, which may still hand out entries up to the snapshot point.
    long durable = Math.min(Math.min(settings.durableAppliedIndex().getAsLong(), core.appliedIndex()), storage.lastIndex());
    int kept = settings.catchUpEntries();
    if (durable - storage.firstIndex() >= kept + Math.min(COMPACT_EVERY, kept)) {
      storage.compact(durable - kept);
    }
  }

  /** On the leader, how far each learner has caught up (for MemberPromote); empty elsewhere. */
  private Map<Long, Long> learnerMatches() {
    if (core.role() != StateRole.LEADER || core.learners().isEmpty()) {
      return Map.of();
    }
    Map<Long, Long> matches = new HashMap<>();
    core.learners().forEach(l -> matches.put(l, core.matchOf(l)));
    return Map.copyOf(matches);
  }

  private void applyConfChange(Entry e) {
    try {
      ConfChange cc = ConfChange.parseFrom(e.data());
      if (cc.getType() == ConfChangeType.UPDATE_MEMBER) {
        return; // new peer URLs only: the transport follows the applied membership
      }
      if (cc.getType() == ConfChangeType.PROMOTE_MEMBER && !core.learners().contains(cc.getMemberId())) {
        return; // no longer a learner (removed meanwhile): the promotion changes nothing, as in etcd
      }
      ConfChangeKind kind = switch (cc.getType()) {
        case ADD_MEMBER, PROMOTE_MEMBER -> ConfChangeKind.ADD_VOTER;
        case ADD_LEARNER -> ConfChangeKind.ADD_LEARNER;
        default -> ConfChangeKind.REMOVE;
      };
      core.applyConfChange(kind, cc.getMemberId());
      ctx.getLog().info("{} applied configuration change at {}: {} {}; voters now {}, learners {}",
          Long.toHexString(settings.memberId()), e.index(), cc.getType(), Long.toHexString(cc.getMemberId()),
          core.voters().stream().map(Long::toHexString).toList(),
          core.learners().stream().map(Long::toHexString).toList());
    } catch (com.google.protobuf.InvalidProtocolBufferException ex) {
      ctx.getLog().error("configuration change at {} is unreadable; skipped", e.index(), ex);
    }
  }

  /** Reads cannot be served without a leader: fail them so clients retry (Unavailable). */
  private void failPendingReads() {
    if (readBatches.isEmpty()) {
      return;
    }
    Throwable error = EtcdError.NO_LEADER.exception();
    readBatches.values().forEach(b -> b.waiters().forEach(f -> f.completeExceptionally(error)));
    readBatches.clear();
  }

  private void scheduleHandleReady() {
    if (!handleReadyScheduled) {
      handleReadyScheduled = true;
      ctx.getSelf().tell(HandleReady.INSTANCE);
    }
  }
}
