package io.akkaetcd.raft;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Raft member's consensus state machine, as a plain object (the shape of etcd's raft).
 *
 * <p>Input: {@link #tick()}, {@link #step(Message)}, {@link #propose(List)},
 * {@link #readIndex(ByteString)}, {@link #campaign()}. Output: a {@link Ready} that the driver
 * handles in order (persist, send, apply) and then acknowledges with {@link #advance(Ready)}. No
 * threads, clock, randomness of its own or I/O: the driver owns all of those.
 *
 * <p>Invariants: at most one vote per term (Raft §5.2); a leader commits only entries of its own
 * term by counting replicas (§5.4.2); a read index is given out only after the leader has
 * committed an entry in its term and confirmed its leadership with a heartbeat round (thesis §6.4).
 */
public final class RaftCore {
  private final long id;
  /** The current configuration: changed one member at a time by {@link #applyConfChange}. */
  private final List<Long> voters;
  /** Members that receive the log but neither vote nor count towards a commit or a read index. */
  private final List<Long> learners;
  /**
   * The index of the last configuration change appended by this leader (or, for a new leader,
   * its last index): no other may be proposed until it is applied (thesis §4.1, one at a time).
   */
  private long pendingConfIndex;
  private final RaftConfig config;
  private final RaftLog log;

  private long term;
  private long vote;
  private long leader;
  private StateRole role = StateRole.FOLLOWER;

  private int electionElapsed;
  private int heartbeatElapsed;
  private int randomizedElectionTimeout;
  /** The member leadership is being handed to (thesis §3.10), 0 if none; leader only. */
  private long leadTransferee;

  private final Map<Long, Progress> progress = new HashMap<>();
  private final Map<Long, Boolean> votes = new HashMap<>();
  private final List<Message> msgs = new ArrayList<>();
  /** How many of {@link #msgs} the Ready being handled holds: those are no longer taken back. */
  private int msgsInReady;
  private final List<ReadState> readStates = new ArrayList<>();

  /** Reads waiting for the leader's first commit in its term: (context, requester). */
  private final List<Message> readsBeforeFirstCommit = new ArrayList<>();
  /** Reads waiting for heartbeat acknowledgements, in arrival order, by context. */
  private final LinkedHashMap<ByteString, PendingRead> pendingReads = new LinkedHashMap<>();

  /** True while {@link #propose} or {@link #readIndex} steps: only those throw when dropped. */
  private boolean localRequest;
  /** The term in which the newest MsgProp was forwarded: a join never crosses a leader change. */
  private long forwardTerm;

  private SoftState prevSoft;
  private HardState prevHard;

  private record PendingRead(long index, long from, ByteString context, Set<Long> acks) {}

  public RaftCore(RaftConfig config, RaftStorage storage) {
    this.config = config;
    this.id = config.id();
    this.voters = new ArrayList<>(config.voters());
    this.learners = new ArrayList<>(config.learners());
    this.log = new RaftLog(storage, config.applied());
    HardState hs = storage.hardState();
    this.term = hs.term();
    this.vote = hs.vote();
    becomeFollower(term, 0);
    this.prevSoft = softState();
    this.prevHard = hardState();
  }

  // ---- queries ----

  public long id() {
    return id;
  }

  public long term() {
    return term;
  }

  public long leader() {
    return leader;
  }

  public StateRole role() {
    return role;
  }

  public long committedIndex() {
    return log.committed;
  }

  public long lastIndex() {
    return log.lastIndex();
  }

  /** The last index handed out to be applied (and advanced). */
  public long appliedIndex() {
    return log.applied;
  }

  private SoftState softState() {
    return new SoftState(leader, role);
  }

  private HardState hardState() {
    return new HardState(term, vote, log.committed);
  }

  private boolean promotable() {
    return voters.contains(id);
  }

  // ---- inputs ----

  /** One heartbeat interval has passed. */
  public void tick() {
    if (role == StateRole.LEADER) {
      heartbeatElapsed++;
      electionElapsed++;
      if (electionElapsed >= config.electionTick()) {
        electionElapsed = 0;
        if (config.checkQuorum()) {
          step(local(MessageType.CHECK_QUORUM));
        }
        // A transfer that did not finish within an election timeout is abandoned (thesis §3.10):
        // the leader takes proposals again.
        leadTransferee = 0;
      }
      if (role == StateRole.LEADER && heartbeatElapsed >= config.heartbeatTick()) {
        heartbeatElapsed = 0;
        step(local(MessageType.BEAT));
      }
      return;
    }
    electionElapsed++;
    if (promotable() && electionElapsed >= randomizedElectionTimeout) {
      electionElapsed = 0;
      step(local(MessageType.HUP));
    }
  }

  /** Starts an election now (pre-vote first if configured). */
  public void campaign() {
    step(local(MessageType.HUP));
  }

  /** Proposes entries as one batch; throws {@link ProposalDroppedException} if none can take it. */
  public void propose(List<ByteString> data) {
    List<Entry> entries = new ArrayList<>(data.size());
    for (ByteString d : data) {
      entries.add(Entry.normal(0, 0, d));
    }
    stepLocal(Message.of(MessageType.PROPOSE).from(id).to(id).entries(entries).build());
  }

  /**
   * Proposes a configuration change (the caller's encoding); it takes effect on every member when
   * committed, through {@link #applyConfChange}. Throws {@link ProposalDroppedException} without a
   * leader, or at the leader while another change is not yet applied.
   */
  public void proposeConfChange(ByteString data) {
    stepLocal(Message.of(MessageType.PROPOSE).from(id).to(id)
        .entries(List.of(new Entry(0, 0, EntryType.CONF_CHANGE, data))).build());
  }

  /**
   * Applies a committed configuration change to {@code member} (see {@link ConfChangeKind}).
   * Idempotent (a restarted member sees changes again). A leader starts replicating to an added
   * member at once and recomputes its commit index when the voters change; a leader that removed
   * itself steps down, and a removed member never campaigns again.
   */
  public void applyConfChange(ConfChangeKind kind, long member) {
    switch (kind) {
      case ADD_VOTER -> {
        if (voters.contains(member)) {
          return;
        }
        learners.remove(member); // a promotion keeps the learner's progress
        voters.add(member);
        startReplicating(member);
      }
      case ADD_LEARNER -> {
        if (voters.contains(member) || learners.contains(member)) {
          return;
        }
        learners.add(member);
        startReplicating(member);
        return;
      }
      case REMOVE -> {
        if (!voters.remove(member) && !learners.remove(member)) {
          return;
        }
        progress.remove(member);
        if (role == StateRole.LEADER && member == id) {
          becomeFollower(term, 0);
        } else if (leadTransferee == member) {
          leadTransferee = 0;
        }
      }
    }
    if (role == StateRole.LEADER && maybeCommit()) {
      bcastAppend();
    }
  }

  private void startReplicating(long member) {
    if (role == StateRole.LEADER && !progress.containsKey(member)) {
      track(member);
      sendAppend(member, true);
    }
  }

  /** A leader's fresh view of a member: probed from the end of its own log, counted active. */
  private void track(long member) {
    Progress p = new Progress(log.lastIndex() + 1, config.maxInflightMsgs());
    p.recentActive = true;
    progress.put(member, p);
  }

  /** The learners of the current configuration. */
  public List<Long> learners() {
    return List.copyOf(learners);
  }

  /**
   * The index up to which {@code member}'s log is known to match this leader's, or -1 if this
   * member does not lead or does not replicate to it (how far a learner has caught up).
   */
  public long matchOf(long member) {
    Progress p = role == StateRole.LEADER ? progress.get(member) : null;
    return p == null ? -1 : p.match;
  }

  /** The voters of the current configuration. */
  public List<Long> voters() {
    return List.copyOf(voters);
  }

  /**
   * Hands leadership to {@code transferee} (thesis §3.10): the leader stops taking proposals,
   * brings the transferee's log up to date, then tells it to campaign at once. Abandoned after an
   * election timeout. Ignored unless this member leads and the transferee is another voter.
   */
  public void transferLeadership(long transferee) {
    step(Message.of(MessageType.TRANSFER_LEADER).from(transferee).to(id).build());
  }

  /**
   * The leader's driver finished sending {@code to} a snapshot, successfully or not. The leader
   * probes again after the next heartbeat answer: a follower that installed it answers at its new
   * index (it usually has already), one that did not gets another snapshot.
   */
  public void reportSnapshot(long to) {
    Progress pr = role == StateRole.LEADER ? progress.get(to) : null;
    if (pr != null) {
      pr.snapshotEnded();
    }
  }

  /**
   * The driver installed a snapshot of the state machine at {@code point}, sent by {@code from}
   * as leader of {@code leaderTerm}, with the configuration it holds (Raft §7). If
   * the log already holds or has committed that point the log is kept and only the commit index
   * moves; otherwise it starts over after the point, which {@link Ready#snapshot()} asks the
   * driver to persist. The sender learns the new end of the log either way. Returns whether the
   * log was restored. The driver installed the state already, and a snapshot is only ever of
   * applied, hence committed, state: so the log follows it even when the sender's term is stale
   * (the state machine must never be ahead of the log), but only a current leader is followed.
   */
  public boolean installSnapshot(long from, long leaderTerm, SnapshotPoint point, List<Long> snapshotVoters,
      List<Long> snapshotLearners) {
    if (leaderTerm >= term) {
      if (leaderTerm > term || role != StateRole.FOLLOWER) {
        becomeFollower(leaderTerm, from);
      }
      electionElapsed = 0;
      leader = from;
    }
    boolean restored = false;
    if (point.index() <= log.committed) {
      // nothing new for the log
    } else if (log.matchTerm(point.index(), point.term())) {
      log.commitTo(point.index());
    } else {
      log.restore(point);
      voters.clear();
      voters.addAll(snapshotVoters);
      learners.clear();
      learners.addAll(snapshotLearners);
      restored = true;
    }
    send(Message.of(MessageType.APPEND_ENTRIES_RESPONSE).to(from).index(restored ? point.index() : log.committed).build());
    return restored;
  }

  /** Asks for a read index; the answer comes as a {@link ReadState} with the same context. */
  public void readIndex(ByteString requestCtx) {
    stepLocal(Message.of(MessageType.READ_INDEX).from(id).to(id).context(requestCtx).build());
  }

  /** Steps a request of this member's own caller, who gets {@link ProposalDroppedException}s. */
  private void stepLocal(Message m) {
    localRequest = true;
    try {
      step(m);
    } finally {
      localRequest = false;
    }
  }

  private Message local(MessageType type) {
    return Message.of(type).from(id).to(id).build();
  }

  /** Handles a message from a peer (or a local one). */
  public void step(Message m) {
    if (m.term() == 0) {
      // local or term-less (forwarded proposal / read index)
    } else if (m.term() > term) {
      boolean preVoteRequest = m.type() == MessageType.REQUEST_PRE_VOTE;
      boolean grantedPreVote = m.type() == MessageType.REQUEST_PRE_VOTE_RESPONSE && !m.reject();
      boolean voteRequest = preVoteRequest || m.type() == MessageType.REQUEST_VOTE;
      boolean transfer = m.context().equals(TRANSFER_CAMPAIGN);
      if (voteRequest && !transfer && config.checkQuorum() && leader != 0 && electionElapsed < config.electionTick()) {
        // Leader lease (thesis §4.2.3): we heard from a leader recently; ignore the disruption.
        return;
      }
      if (!preVoteRequest && !grantedPreVote) {
        boolean fromLeader = m.type() == MessageType.APPEND_ENTRIES || m.type() == MessageType.HEARTBEAT;
        becomeFollower(m.term(), fromLeader ? m.from() : 0);
      }
    } else if (m.term() < term) {
      if ((config.checkQuorum() || config.preVote())
          && (m.type() == MessageType.APPEND_ENTRIES || m.type() == MessageType.HEARTBEAT)) {
        // Tell a stale leader about the newer term so it steps down.
        send(Message.of(MessageType.APPEND_ENTRIES_RESPONSE).to(m.from()).build());
      } else if (m.type() == MessageType.REQUEST_PRE_VOTE) {
        send(Message.of(MessageType.REQUEST_PRE_VOTE_RESPONSE).to(m.from()).term(term).reject(true).build());
      }
      return;
    }

    switch (m.type()) {
      case HUP -> hup();
      case REQUEST_VOTE, REQUEST_PRE_VOTE -> handleVoteRequest(m);
      default -> {
        switch (role) {
          case LEADER -> stepLeader(m);
          case CANDIDATE, PRE_CANDIDATE -> stepCandidate(m);
          case FOLLOWER -> stepFollower(m);
        }
      }
    }
  }

  // ---- elections (Raft §5.2, thesis §9.6 pre-vote) ----

  /** Marks the vote requests of a campaign the leader asked for: voters skip the leader lease. */
  private static final ByteString TRANSFER_CAMPAIGN = ByteString.copyFromUtf8("transfer");

  private void hup() {
    hup(false);
  }

  /**
   * Starts a campaign; one the leader asked for by TIMEOUT_NOW skips pre-vote, and its vote
   * requests carry {@link #TRANSFER_CAMPAIGN} so that voters that still hear the leader vote.
   */
  private void hup(boolean transfer) {
    if (role == StateRole.LEADER || !promotable()) {
      return;
    }
    if (log.committed > log.applied && hasUnappliedConfChange()) {
      return;
    }
    campaignFor(config.preVote() && !transfer ? MessageType.REQUEST_PRE_VOTE : MessageType.REQUEST_VOTE, transfer);
  }

  private boolean hasUnappliedConfChange() {
    return log.nextCommitted(Long.MAX_VALUE).stream().anyMatch(e -> e.type() == EntryType.CONF_CHANGE);
  }

  private void campaignFor(MessageType kind) {
    campaignFor(kind, false);
  }

  private void campaignFor(MessageType kind, boolean transfer) {
    long voteTerm;
    if (kind == MessageType.REQUEST_PRE_VOTE) {
      becomePreCandidate();
      voteTerm = term + 1;
    } else {
      becomeCandidate();
      voteTerm = term;
    }
    if (poll(id, true) == Quorum.VoteResult.WON) {
      winElection(kind);
      return;
    }
    for (long peer : voters) {
      if (peer != id) {
        send(Message.of(kind).to(peer).term(voteTerm).index(log.lastIndex()).logTerm(log.lastTerm())
            .context(transfer ? TRANSFER_CAMPAIGN : ByteString.EMPTY).build());
      }
    }
  }

  private void winElection(MessageType kind) {
    if (kind == MessageType.REQUEST_PRE_VOTE) {
      campaignFor(MessageType.REQUEST_VOTE);
    } else {
      becomeLeader();
    }
  }

  private Quorum.VoteResult poll(long from, boolean granted) {
    votes.putIfAbsent(from, granted);
    long yes = votes.values().stream().filter(v -> v).count();
    return Quorum.tally(voters.size(), yes, votes.size() - yes);
  }

  private void handleVoteRequest(Message m) {
    boolean preVote = m.type() == MessageType.REQUEST_PRE_VOTE;
    boolean canVote = vote == m.from()
        || (vote == 0 && leader == 0)
        || (preVote && m.term() > term);
    if (canVote && log.isUpToDate(m.index(), m.logTerm())) {
      send(Message.of(m.type().voteResponse()).to(m.from()).term(m.term()).build());
      if (!preVote) {
        electionElapsed = 0;
        vote = m.from();
      }
    } else {
      send(Message.of(m.type().voteResponse()).to(m.from()).term(term).reject(true).build());
    }
  }

  private void becomeFollower(long newTerm, long newLeader) {
    reset(newTerm);
    role = StateRole.FOLLOWER;
    leader = newLeader;
  }

  private void becomePreCandidate() {
    // Pre-vote changes neither term nor vote: a partitioned member cannot disrupt by rejoining.
    votes.clear();
    role = StateRole.PRE_CANDIDATE;
    leader = 0;
  }

  private void becomeCandidate() {
    reset(term + 1);
    vote = id;
    role = StateRole.CANDIDATE;
  }

  private void becomeLeader() {
    reset(term);
    role = StateRole.LEADER;
    leader = id;
    replicas().forEach(this::track);
    Progress self = progress.get(id);
    if (self != null) {
      self.match = log.lastIndex();
      self.becomeReplicate();
    }
    // Any configuration change in the log may still be unapplied: none is taken before it is.
    pendingConfIndex = log.lastIndex();
    // Raft §8: a new leader commits a no-op of its term, which also commits what came before.
    appendEntries(List.of(Entry.normal(0, 0, ByteString.EMPTY)));
    bcastAppend();
  }

  private void reset(long newTerm) {
    if (newTerm != term) {
      term = newTerm;
      vote = 0;
    }
    leader = 0;
    electionElapsed = 0;
    heartbeatElapsed = 0;
    randomizedElectionTimeout = config.electionTick() + config.random().nextInt(config.electionTick());
    votes.clear();
    progress.clear();
    leadTransferee = 0;
    pendingReads.clear();
    readsBeforeFirstCommit.clear();
  }

  // ---- leader ----

  private void stepLeader(Message m) {
    switch (m.type()) {
      case BEAT -> {
        // Carry the newest pending read's context: if its own round was lost, this one confirms
        // it and every read before it (as etcd does), so a lost heartbeat does not strand reads.
        ByteString ctx = ByteString.EMPTY;
        for (ByteString c : pendingReads.keySet()) {
          ctx = c;
        }
        bcastHeartbeat(ctx);
      }
      case CHECK_QUORUM -> {
        long active = voters.stream().filter(p -> p == id || progress.get(p).recentActive).count();
        if (active < Quorum.majority(voters.size())) {
          becomeFollower(term, 0);
          return;
        }
        progress.forEach((p, pr) -> pr.recentActive = p == id);
      }
      case PROPOSE -> {
        if (!voters.contains(id)) {
          drop(m, "leader is not a voter");
          return;
        }
        if (leadTransferee != 0) {
          drop(m, "leadership is being transferred");
          return;
        }
        int conf = -1;
        for (int i = 0; i < m.entries().size(); i++) {
          if (m.entries().get(i).type() == EntryType.CONF_CHANGE) {
            if (conf >= 0 || pendingConfIndex > log.applied) {
              drop(m, "a configuration change is still pending");
              return;
            }
            conf = i;
          }
        }
        long first = log.lastIndex() + 1;
        appendEntries(m.entries());
        if (conf >= 0) {
          pendingConfIndex = first + conf;
        }
        bcastAppend();
      }
      case TRANSFER_LEADER -> {
        long to = m.from();
        if (to == id || !voters.contains(to) || to == leadTransferee) {
          return;
        }
        leadTransferee = to;
        electionElapsed = 0;
        if (progress.get(to).match == log.lastIndex()) {
          send(Message.of(MessageType.TIMEOUT_NOW).to(to).build());
        } else {
          sendAppend(to, true);
        }
      }
      case READ_INDEX -> handleReadIndexAsLeader(m);
      case APPEND_ENTRIES_RESPONSE -> handleAppendResponse(m);
      case HEARTBEAT_RESPONSE -> {
        Progress pr = progress.get(m.from());
        if (pr == null) {
          return;
        }
        pr.recentActive = true;
        pr.heartbeatAnswered();
        if (pr.match < log.lastIndex()) {
          sendAppend(m.from(), true);
        }
        if (!m.context().isEmpty()) {
          ackRead(m.context(), m.from());
        }
      }
      default -> { }
    }
  }

  private void appendEntries(List<Entry> entries) {
    long index = log.lastIndex();
    List<Entry> stamped = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      stamped.add(new Entry(term, ++index, e.type(), e.data()));
    }
    log.append(stamped);
    Progress self = progress.get(id);
    if (self != null) {
      self.maybeUpdate(log.lastIndex());
    }
    maybeCommit();
  }

  /** Commits the highest index a majority has, if it is of the current term (Raft §5.4.2). */
  private boolean maybeCommit() {
    List<Long> matches = new ArrayList<>();
    for (long v : voters) {
      Progress pr = progress.get(v);
      matches.add(pr == null ? 0 : pr.match);
    }
    long index = Quorum.committedIndex(matches);
    if (index > log.committed && log.term(index) == term) {
      boolean firstInTerm = log.term(log.committed) != term;
      log.commitTo(index);
      if (firstInTerm) {
        releaseReadsBeforeFirstCommit();
      }
      return true;
    }
    return false;
  }

  private void handleAppendResponse(Message m) {
    Progress pr = progress.get(m.from());
    if (pr == null) {
      return;
    }
    pr.recentActive = true;
    if (m.reject()) {
      // The follower says where its log could match ours (rejectHint, logTerm): skip every index
      // of ours whose term is above that, a whole term per round trip (etcd's findConflictByTerm).
      long hint = m.rejectHint();
      if (m.logTerm() > 0) {
        hint = log.findConflictByTerm(hint, m.logTerm());
      }
      if (pr.maybeDecrease(m.index(), hint)) {
        sendAppend(m.from(), true);
      }
      return;
    }
    if (pr.maybeUpdate(m.index())) {
      if (pr.state == Progress.State.PROBE
          || (pr.state == Progress.State.SNAPSHOT && pr.match >= pr.pendingSnapshot)) {
        pr.becomeReplicate();
      }
      if (m.from() == leadTransferee && pr.match == log.lastIndex()) {
        send(Message.of(MessageType.TIMEOUT_NOW).to(m.from()).build());
      }
      if (maybeCommit()) {
        bcastAppend();
      } else {
        while (sendAppend(m.from(), false)) {
          // stream what is left, as far as the inflight window allows
        }
      }
    }
  }

  /** Every member the log goes to: the voters, then the learners. */
  private List<Long> replicas() {
    if (learners.isEmpty()) {
      return voters;
    }
    List<Long> all = new ArrayList<>(voters);
    all.addAll(learners);
    return all;
  }

  private void bcastAppend() {
    for (long peer : replicas()) {
      if (peer != id) {
        sendAppend(peer, true);
      }
    }
  }

  /**
   * Sends {@code to} the entries from its {@code next} on (an empty probe if {@code sendIfEmpty}),
   * unless its progress is paused; returns whether anything was sent.
   */
  private boolean sendAppend(long to, boolean sendIfEmpty) {
    Progress pr = progress.get(to);
    if (pr == null || pr.isPaused()) {
      return false;
    }
    long prev = pr.next - 1;
    if (prev < log.firstIndex() - 1) {
      // The follower needs entries this log no longer holds: its driver must send it the state
      // machine instead (Raft §7, InstallSnapshot), and appends wait until it has it.
      long compacted = log.firstIndex() - 1;
      pr.becomeSnapshot(compacted);
      send(Message.of(MessageType.SNAPSHOT).to(to).index(compacted).logTerm(log.term(compacted)).build());
      return true;
    }
    List<Entry> entries = prev < log.lastIndex()
        ? log.slice(prev + 1, log.lastIndex() + 1, config.maxSizePerMsg())
        : List.of();
    if (entries.isEmpty() && !sendIfEmpty) {
      return false;
    }
    send(Message.of(MessageType.APPEND_ENTRIES).to(to).index(prev).logTerm(log.term(prev))
        .entries(entries).commit(log.committed).build());
    if (entries.isEmpty()) {
      pr.sentProbe();
    } else {
      pr.sentEntries(entries.get(entries.size() - 1).index());
    }
    return true;
  }

  private void bcastHeartbeat(ByteString context) {
    for (long peer : replicas()) {
      if (peer != id) {
        long commit = Math.min(progress.get(peer).match, log.committed);
        send(Message.of(MessageType.HEARTBEAT).to(peer).commit(commit).context(context).build());
      }
    }
  }

  private void handleReadIndexAsLeader(Message m) {
    if (log.term(log.committed) != term) {
      readsBeforeFirstCommit.add(m);
      return;
    }
    long index = log.committed;
    if (voters.size() == 1) {
      answerRead(m.from(), index, m.context());
      return;
    }
    PendingRead read = new PendingRead(index, m.from(), m.context(), new HashSet<>(Set.of(id)));
    pendingReads.put(m.context(), read);
    bcastHeartbeat(m.context());
  }

  private void releaseReadsBeforeFirstCommit() {
    List<Message> waiting = List.copyOf(readsBeforeFirstCommit);
    readsBeforeFirstCommit.clear();
    waiting.forEach(this::handleReadIndexAsLeader);
  }

  /** A heartbeat round for {@code context} was acknowledged by {@code from}: release what a majority confirmed. */
  private void ackRead(ByteString context, long from) {
    PendingRead read = pendingReads.get(context);
    if (read == null || !voters.contains(from)) {
      return; // a learner's answer confirms nobody's leadership
    }
    read.acks().add(from);
    if (read.acks().size() < Quorum.majority(voters.size())) {
      return;
    }
    // This round confirms leadership for every read queued before it too.
    var it = pendingReads.entrySet().iterator();
    while (it.hasNext()) {
      PendingRead r = it.next().getValue();
      it.remove();
      answerRead(r.from(), r.index(), r.context());
      if (r == read) {
        break;
      }
    }
  }

  private void answerRead(long to, long index, ByteString context) {
    if (to == id) {
      readStates.add(new ReadState(index, context));
    } else {
      send(Message.of(MessageType.READ_INDEX_RESPONSE).to(to).index(index).context(context).build());
    }
  }

  // ---- candidate ----

  private void stepCandidate(Message m) {
    MessageType expected = role == StateRole.PRE_CANDIDATE
        ? MessageType.REQUEST_PRE_VOTE_RESPONSE : MessageType.REQUEST_VOTE_RESPONSE;
    switch (m.type()) {
      case PROPOSE, READ_INDEX -> drop(m, "no leader (election in progress)");
      case APPEND_ENTRIES -> {
        becomeFollower(m.term(), m.from());
        handleAppend(m);
      }
      case HEARTBEAT -> {
        becomeFollower(m.term(), m.from());
        handleHeartbeat(m);
      }
      default -> {
        if (m.type() == expected) {
          switch (poll(m.from(), !m.reject())) {
            case WON -> winElection(role == StateRole.PRE_CANDIDATE
                ? MessageType.REQUEST_PRE_VOTE : MessageType.REQUEST_VOTE);
            case LOST -> becomeFollower(term, 0);
            case PENDING -> { }
          }
        }
      }
    }
  }

  // ---- follower ----

  private void stepFollower(Message m) {
    switch (m.type()) {
      case PROPOSE -> {
        if (leader == 0) {
          drop(m, "no leader");
        } else {
          // Keeps the original sender (as etcd): a chain of forwards answers the one who asked.
          forwardProposal(m.from() != 0 ? m.from() : id, m.entries());
        }
      }
      case READ_INDEX -> {
        if (leader == 0) {
          drop(m, "no leader");
        } else {
          send(Message.of(MessageType.READ_INDEX).from(m.from()).to(leader).context(m.context()).build());
        }
      }
      case READ_INDEX_RESPONSE -> readStates.add(new ReadState(m.index(), m.context()));
      case TIMEOUT_NOW -> hup(true);
      case APPEND_ENTRIES -> {
        electionElapsed = 0;
        leader = m.from();
        handleAppend(m);
      }
      case HEARTBEAT -> {
        electionElapsed = 0;
        leader = m.from();
        handleHeartbeat(m);
      }
      default -> { }
    }
  }

  /**
   * Sends the leader {@code entries} proposed at {@code origin}, joined to a forward from the same
   * origin to the same leader that no Ready has handed out yet: proposals gathered between two
   * Readys travel as one MsgProp (one peer message, one append on the leader), in their order.
   * A configuration change travels alone: the leader drops a whole MsgProp it cannot take.
   */
  private void forwardProposal(long origin, List<Entry> entries) {
    for (int i = msgs.size() - 1; i >= msgsInReady && !hasConfChange(entries); i--) {
      Message old = msgs.get(i);
      if (old.type() == MessageType.PROPOSE && old.from() == origin) {
        if (old.to() == leader && term == forwardTerm && !hasConfChange(old.entries())) {
          List<Entry> joined = new ArrayList<>(old.entries().size() + entries.size());
          joined.addAll(old.entries());
          joined.addAll(entries);
          msgs.set(i, Message.of(MessageType.PROPOSE).from(origin).to(leader).entries(joined).build());
          return;
        }
        break; // the latest forward from origin cannot take them: joining an older one reorders
      }
    }
    forwardTerm = term;
    send(Message.of(MessageType.PROPOSE).from(origin).to(leader).entries(entries).build());
  }

  private static boolean hasConfChange(List<Entry> entries) {
    for (Entry e : entries) {
      if (e.type() == EntryType.CONF_CHANGE) {
        return true;
      }
    }
    return false;
  }

  private void handleAppend(Message m) {
    if (m.index() < log.committed) {
      send(Message.of(MessageType.APPEND_ENTRIES_RESPONSE).to(m.from()).index(log.committed).build());
      return;
    }
    long lastNew = log.maybeAppend(m.index(), m.logTerm(), m.commit(), m.entries());
    if (lastNew >= 0) {
      send(Message.of(MessageType.APPEND_ENTRIES_RESPONSE).to(m.from()).index(lastNew).build());
    } else {
      // Hint the last index at or below the rejected one whose term is at most the leader's
      // logTerm there: everything above it cannot match (etcd raft's rejection hint).
      long hint = log.findConflictByTerm(Math.min(m.index(), log.lastIndex()), m.logTerm());
      send(Message.of(MessageType.APPEND_ENTRIES_RESPONSE).to(m.from()).index(m.index())
          .reject(true).rejectHint(hint).logTerm(log.term(hint)).build());
    }
  }

  private void handleHeartbeat(Message m) {
    log.commitTo(Math.min(m.commit(), log.lastIndex()));
    send(Message.of(MessageType.HEARTBEAT_RESPONSE).to(m.from()).context(m.context()).build());
  }

  /**
   * A proposal or read index that cannot be taken now: the caller's own gets an exception (it can
   * answer its client at once); one forwarded by a peer is dropped, as etcd does, and its client
   * times out at that peer.
   */
  private void drop(Message m, String why) {
    if (localRequest) {
      throw new ProposalDroppedException(why);
    }
  }

  // ---- output ----

  private void send(Message m) {
    long from = m.from() != 0 ? m.from() : id; // a forward keeps the original sender
    Message.Builder b = Message.of(m.type()).from(from).to(m.to()).logTerm(m.logTerm()).index(m.index())
        .entries(m.entries()).commit(m.commit()).reject(m.reject()).rejectHint(m.rejectHint())
        .context(m.context());
    boolean termless = m.type() == MessageType.PROPOSE || m.type() == MessageType.READ_INDEX;
    boolean voteKind = m.type() == MessageType.REQUEST_VOTE || m.type() == MessageType.REQUEST_PRE_VOTE
        || m.type() == MessageType.REQUEST_VOTE_RESPONSE || m.type() == MessageType.REQUEST_PRE_VOTE_RESPONSE;
    // Vote messages carry the term they were built with; the others carry ours.
    b.term(termless ? 0 : voteKind ? m.term() : term);
    Message out = b.build();
    if (out.type() == MessageType.APPEND_ENTRIES) {
      dropSuperseded(out, old -> old.type() == MessageType.APPEND_ENTRIES && old.entries().isEmpty());
    } else if (out.type() == MessageType.APPEND_ENTRIES_RESPONSE && !out.reject()) {
      dropSuperseded(out, old -> old.type() == MessageType.APPEND_ENTRIES_RESPONSE && !old.reject()
          && old.index() <= out.index());
    }
    msgs.add(out);
  }

  /**
   * Takes back a message not yet handed out in a Ready that {@code later} makes useless: an empty
   * append (it carries only the commit index, and {@code later} carries the same or a newer one
   * to the same member, in the same term), or an acknowledgement of an index that {@code later}
   * acknowledges too. Under load a leader commits several times between two Readys and a
   * follower takes several appends in one; without this, each of them costs a message (and an
   * answer) to every peer. Dropping a message is always safe in Raft (the network may lose any
   * of them); here the one that survives says everything the dropped one did.
   */
  private void dropSuperseded(Message later, java.util.function.Predicate<Message> supersedes) {
    for (int i = msgs.size() - 1; i >= msgsInReady; i--) {
      Message old = msgs.get(i);
      if (old.to() == later.to() && old.term() == later.term() && supersedes.test(old)) {
        msgs.remove(i);
        return; // the nearest one: any before it was taken back when it came
      }
    }
  }

  public boolean hasReady() {
    return !softState().equals(prevSoft)
        || !hardState().equals(prevHard)
        || log.hasUnstable()
        || !msgs.isEmpty()
        || !readStates.isEmpty()
        || log.hasNextCommitted()
        || log.pendingSnapshot() != null;
  }

  public Ready ready() {
    msgsInReady = msgs.size();
    SoftState soft = softState();
    HardState hard = hardState();
    return new Ready(
        log.pendingSnapshot(),
        soft.equals(prevSoft) ? null : soft,
        hard.equals(prevHard) ? null : hard,
        log.unstableEntries(),
        msgs,
        log.nextCommitted(64L * 1024 * 1024),
        readStates);
  }

  public void advance(Ready rd) {
    if (rd.softState() != null) {
      prevSoft = rd.softState();
    }
    if (rd.hardState() != null) {
      prevHard = rd.hardState();
    }
    if (rd.snapshot() != null) {
      log.snapshotStable(rd.snapshot());
    }
    if (!rd.entries().isEmpty()) {
      Entry last = rd.entries().get(rd.entries().size() - 1);
      log.stableTo(last.index(), last.term());
    }
    if (!rd.committedEntries().isEmpty()) {
      log.appliedTo(rd.committedEntries().get(rd.committedEntries().size() - 1).index());
    }
    msgs.subList(0, Math.min(rd.messages().size(), msgs.size())).clear();
    msgsInReady = 0;
    readStates.subList(0, Math.min(rd.readStates().size(), readStates.size())).clear();
  }
}
