package io.akkaetcd.raft.member;

import akka.actor.typed.ActorRef;
import com.google.protobuf.ByteString;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.SnapshotPoint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where client requests and peer messages wait for the {@link RaftMember}: proposals, read-index
 * requests and Raft messages from other members go into lock-free queues, and the member is sent
 * one {@code Flush} whenever there is something new for it.
 *
 * <p>Why not a message per request: an event-sourced actor stashes every command that arrives
 * while a journal write (or the recovery) is in flight, and Akka Persistence unstashes them one
 * inside the other; thousands of waiting requests overflowed the stack. Here at most one Flush
 * waits, and a Flush takes everything queued as one batch (group commit).
 *
 * <p>Invariant: after a request is queued, a Flush is sent unless one is pending, and the member
 * clears "pending" before it drains, so no request is left behind without a Flush to come.
 */
public final class RaftInbox {
  /** A proposal: the caller waits for {@code requestId} in the request {@link io.akkaetcd.wait.Wait}. */
  public record Proposal(long requestId, ByteString data) {}

  private final ConcurrentLinkedQueue<Proposal> proposals = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Proposal> confChanges = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<CompletableFuture<Long>> reads = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Message> messages = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> transfers = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> snapshotsSent = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<SnapshotInstalled> snapshotsInstalled = new ConcurrentLinkedQueue<>();

  /**
   * The state machine was replaced by a snapshot ending at {@code point}, sent by {@code from} as
   * leader of {@code term}; {@code voters} and {@code learners} are the configuration it holds.
   */
  public record SnapshotInstalled(long from, long term, SnapshotPoint point, List<Long> voters,
                                  List<Long> learners) {}
  private final AtomicBoolean flushPending = new AtomicBoolean();
  private volatile ActorRef<RaftMember.Command> member;

  /** What waits for the member now: proposals, reads and peer messages (O(n): for scrapes only). */
  public int depth() {
    return proposals.size() + confChanges.size() + reads.size() + messages.size();
  }

  /** Propose an entry. */
  public void propose(long requestId, ByteString data) {
    proposals.add(new Proposal(requestId, data));
    signal();
  }

  /** Propose a configuration change (its own entry; one at a time). */
  public void proposeConfChange(long requestId, ByteString data) {
    confChanges.add(new Proposal(requestId, data));
    signal();
  }

  /** Ask for a read index (Raft thesis 6.4); completed with the index to wait for. */
  public void readIndex(CompletableFuture<Long> result) {
    reads.add(result);
    signal();
  }

  /** Asks the member, if it leads, to hand leadership to {@code transferee} (MoveLeader). */
  public void transferLeadership(long transferee) {
    transfers.add(transferee);
    signal();
  }

  /** A snapshot transfer to member {@code to}, asked for by the core, ended (either way). */
  public void snapshotSent(long to) {
    snapshotsSent.add(to);
    signal();
  }

  /** A snapshot from the leader replaced this member's state machine: the log must follow. */
  public void snapshotInstalled(SnapshotInstalled installed) {
    snapshotsInstalled.add(installed);
    signal();
  }

  /** A Raft message from a peer. */
  public void deliver(Message m) {
    messages.add(m);
    signal();
  }

  private void signal() {
    ActorRef<RaftMember.Command> m = member;
    if (m != null && flushPending.compareAndSet(false, true)) {
      m.tell(RaftMember.Flush.INSTANCE);
    }
  }

  /** The member (again, after a restart) takes requests from here; anything already queued is signalled. */
  void attach(ActorRef<RaftMember.Command> self) {
    member = self;
    flushPending.set(false);
    signal();
  }

  /** Called by the member before it drains: requests queued from now on send a new Flush. */
  void flushing() {
    flushPending.set(false);
  }

  /** Takes every queued proposal, oldest first. */
  List<Proposal> drainProposals() {
    return drain(proposals);
  }

  /** Takes every queued read-index request, oldest first. */
  List<CompletableFuture<Long>> drainReads() {
    return drain(reads);
  }

  /** Takes every queued configuration change, oldest first. */
  List<Proposal> drainConfChanges() {
    return drain(confChanges);
  }

  /** Takes every queued leadership transfer request. */
  List<Long> drainTransfers() {
    return drain(transfers);
  }

  List<Long> drainSnapshotsSent() {
    return drain(snapshotsSent);
  }

  List<SnapshotInstalled> drainSnapshotsInstalled() {
    return drain(snapshotsInstalled);
  }

  /** Takes every queued peer message, in arrival order. */
  List<Message> drainMessages() {
    return drain(messages);
  }

  private static <T> List<T> drain(ConcurrentLinkedQueue<T> queue) {
    List<T> out = new ArrayList<>();
    for (T item; (item = queue.poll()) != null; ) {
      out.add(item);
    }
    return out;
  }
}
