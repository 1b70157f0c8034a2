package io.akkaetcd.server;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.raftpb.ConfChange;
import io.akkaetcd.raft.member.RaftInbox;
import io.akkaetcd.raft.member.RaftStatus;
import io.akkaetcd.wait.AppliedIndexWait;
import io.akkaetcd.wait.Wait;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A member's requests to its Raft member and their waits: proposals (etcd's
 * EtcdServer.processInternalRaftRequest), membership changes, and the read-index barrier of
 * linearizable reads. Each waits under a request id until it is applied here, and fails after
 * the request timeout ({@link #expire}) or when the member stops ({@link #failAll}).
 */
final class Proposals {
  /** How often waiting proposals and linearizable reads are checked against the request timeout. */
  static final Duration EXPIRY_SWEEP = Duration.ofMillis(50);

  private final RaftInbox inbox;
  private final AtomicReference<RaftStatus> raftStatus;
  private final AppliedIndexWait applied;
  /** Proposals waiting for their entry to be applied here, by request id. */
  private final Wait wait;
  /** Linearizable reads waiting for their read index to be applied, by an id from {@link #ids}. */
  private final Wait reads = new Wait();
  private final RequestIds ids;
  private final int maxRequestBytes;
  private final long maxApplyGap;
  private final ProposalAdmission admission;
  private final Duration requestTimeout;
  private final Duration electionTimeout;

  private volatile Runnable failed = () -> { };

  Proposals(RaftInbox inbox, AtomicReference<RaftStatus> raftStatus, AppliedIndexWait applied, Wait wait,
      RequestIds ids, int maxRequestBytes, long maxApplyGap, ProposalAdmission admission, Duration requestTimeout,
      Duration electionTimeout) {
    this.inbox = inbox;
    this.raftStatus = raftStatus;
    this.applied = applied;
    this.wait = wait;
    this.ids = ids;
    this.maxRequestBytes = maxRequestBytes;
    this.maxApplyGap = maxApplyGap;
    this.admission = admission;
    this.requestTimeout = requestTimeout;
    this.electionTimeout = electionTimeout;
  }

  /** A client's proposal: refused with "too many requests" when over the {@link ProposalAdmission} bound. */
  CompletionStage<Object> propose(InternalRaftRequest.Builder request) {
    return propose(request, true);
  }

  /** The member's own proposal (lease revokes, compaction, alarms, publish): not bounded by admission. */
  CompletionStage<Object> proposeOwn(InternalRaftRequest.Builder request) {
    return propose(request, false);
  }

  private CompletionStage<Object> propose(InternalRaftRequest.Builder request, boolean clients) {
    boolean bounded = clients && admission.bounded();
    RaftStatus status = raftStatus.get();
    if (status.committedIndex() - applied.applied() > maxApplyGap) {
      return CompletableFuture.failedFuture(EtcdError.TOO_MANY_REQUESTS.exception());
    }
    long id = ids.next();
    InternalRaftRequest built = request.setId(id).build();
    ByteString data = built.toByteString();
    int size = data.size();
    if (size > maxRequestBytes) {
      return CompletableFuture.failedFuture(EtcdError.REQUEST_TOO_LARGE.exception());
    }
    if (bounded && !admission.tryAdmit(size)) {
      return CompletableFuture.failedFuture(EtcdError.TOO_MANY_REQUESTS.exception());
    }
    CompletableFuture<Object> result = wait.register(id, data, built); // applied here unparsed
    if (bounded) {
      result.whenComplete((r, e) -> admission.release(size));
    }
    inbox.propose(id, data);
    return result; // fails by expire after --request-timeout
  }

  /** Proposes a membership change; completes with what the applier answers once it is applied here. */
  CompletionStage<Object> proposeConfChange(ConfChange.Builder change) {
    long id = ids.next();
    CompletableFuture<Object> result = wait.register(id);
    inbox.proposeConfChange(id, change.setRequestId(id).build().toByteString());
    return result; // fails by expire after --request-timeout
  }

  /** Completes once this member has applied what the leader had committed when it was asked (Raft §6.4). */
  CompletionStage<Void> linearizableBarrier() {
    long id = ids.next();
    CompletableFuture<Object> done = reads.register(id); // fails by expire, as proposals do
    CompletableFuture<Long> readIndex = new CompletableFuture<>();
    inbox.readIndex(readIndex);
    readIndex.thenCompose(applied::waitFor).whenComplete((index, error) -> {
      if (error == null) {
        reads.trigger(id, index);
      } else {
        reads.fail(id, error);
      }
    });
    return done.thenApply(i -> null);
  }

  /** Counts each proposal that fails: timed out here, or dropped by the Raft member. */
  void countFailures(Runnable failed) {
    this.failed = failed;
  }

  /** Fails the proposals and reads that have waited the request timeout (etcd's "request timed out"). */
  void expire() {
    long now = System.nanoTime();
    wait.expire(now, requestTimeout.toNanos(), registered -> {
      failed.run();
      return timeoutError(registered);
    });
    // etcd answers a read index that timed out with a plain "request timed out".
    reads.expire(now, requestTimeout.toNanos(), registered -> EtcdError.TIMEOUT.exception());
  }

  /** Fails everything still waiting: the member stopped. */
  void failAll(EtcdException error) {
    wait.failAll(error);
    reads.failAll(error);
  }

  long newLeaseId() {
    return ids.next() & Long.MAX_VALUE;
  }

  /**
   * etcd's reading of a proposal that timed out: if a new leader was elected after it was made,
   * and the old one was lost no earlier than two election timeouts before that, the old leader's
   * failure is the likely cause.
   */
  private EtcdException timeoutError(long startNanos) {
    long elected = raftStatus.get().leaderElectedNanos();
    long lost = elected - 2 * electionTimeout.toNanos();
    boolean leaderFailed = elected != 0 && startNanos - lost > 0 && elected - startNanos > 0;
    return (leaderFailed ? EtcdError.TIMEOUT_LEADER_FAIL : EtcdError.TIMEOUT).exception();
  }
}
