package io.akkaetcd.api;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.EtcdFailures;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Carries an idempotent request through elections: run again once a leader is known when it
 * failed for the lack of one, and at once when the leader changed while it waited (its entry may
 * have gone with the old leader, which etcd reports only at the request timeout). Whichever
 * attempt answers first counts. No attempt starts after the request timeout; then the last
 * failure stands.
 *
 * <p>For requests whose failure clients do not retry: jetcd turns a failed Authenticate into
 * Unauthenticated, which ends the watch it was re-creating for good.
 */
final class ThroughElections<T> {
  /** How often the leader is looked at while the request is pending (a tenth of etcd's 1 s election timeout). */
  static final Duration POLL = Duration.ofMillis(100);
  /** What an election causes; anything else is the request's own answer. */
  private static final Set<EtcdError> ELECTION_FAILURES =
      EnumSet.of(EtcdError.NO_LEADER, EtcdError.LEADER_CHANGED, EtcdError.TIMEOUT, EtcdError.TIMEOUT_LEADER_FAIL);

  private final Supplier<CompletionStage<T>> request;
  private final LongSupplier leader;
  private final long deadline;
  private final CompletableFuture<T> result = new CompletableFuture<>();
  /** Guarded by this. */
  private int pending;
  private long leaderAsked;
  private Throwable lastFailure;

  private ThroughElections(Supplier<CompletionStage<T>> request, LongSupplier leader, Duration timeout) {
    this.request = request;
    this.leader = leader;
    this.deadline = System.nanoTime() + timeout.toNanos();
  }

  /**
   * @param leader the leader this member knows, 0 for none
   * @param timeout after which no attempt starts (the request timeout)
   */
  static <T> CompletionStage<T> run(Supplier<CompletionStage<T>> request, LongSupplier leader, Duration timeout) {
    ThroughElections<T> r = new ThroughElections<>(request, leader, timeout);
    r.attempt(leader.getAsLong());
    r.watchLater();
    return r.result;
  }

  private void attempt(long knownLeader) {
    synchronized (this) {
      pending++;
      leaderAsked = knownLeader;
    }
    EtcdFailures.guarded(request).whenComplete(this::answered);
  }

  private void answered(T answer, Throwable failure) {
    synchronized (this) {
      pending--;
      if (failure == null) {
        result.complete(answer);
      } else if (!(EtcdFailures.cause(failure) instanceof EtcdException e && ELECTION_FAILURES.contains(e.error()))) {
        result.completeExceptionally(failure);
      } else {
        lastFailure = failure;
        giveUpIfLate();
      }
    }
  }

  /** Every {@link #POLL} until answered: a new attempt when a leader is known that none pending asked. */
  private void watchLater() {
    CompletableFuture.delayedExecutor(POLL.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
      if (result.isDone()) {
        return;
      }
      long now = leader.getAsLong();
      boolean again;
      synchronized (this) {
        again = now != 0 && (pending == 0 || now != leaderAsked) && System.nanoTime() < deadline;
        if (!again) {
          giveUpIfLate();
        }
      }
      if (again) {
        attempt(now);
      }
      watchLater();
    });
  }

  private void giveUpIfLate() {
    if (pending == 0 && System.nanoTime() >= deadline && lastFailure != null) {
      result.completeExceptionally(lastFailure);
    }
  }
}
