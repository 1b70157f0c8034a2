package io.akkaetcd.server;

import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.raft.member.RaftStatus;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * --experimental-learner-auto-promote (etcd #15107; etcd's own attempt is the proposed
 * {@code AutoPromoteLearners} feature gate): on the leader, each run promotes a learner that has
 * caught up, through the operator's own MemberPromote path, so etcd's rules still decide: the 90 %
 * rule (learner's match index at least 0.9 × the leader's commit index) and strict reconfiguration.
 * Invariant: at most one promotion is in flight, and only one learner is promoted per run (one
 * conf change at a time). Refusals are expected while the learner catches up and are only logged
 * at DEBUG; the next run asks again.
 */
final class LearnerAutoPromote implements Runnable {
  /** How often the leader looks (etcd's proposal checks every monitorVersionInterval, ~4 s). */
  static final Duration EVERY = Duration.ofSeconds(1);
  private static final Logger log = LoggerFactory.getLogger(LearnerAutoPromote.class);

  private final Membership membership;
  private final Supplier<RaftStatus> status;
  private final LongFunction<CompletionStage<ClusterMembers>> promote;
  private final AtomicBoolean inFlight = new AtomicBoolean();

  LearnerAutoPromote(Membership membership, Supplier<RaftStatus> status,
      LongFunction<CompletionStage<ClusterMembers>> promote) {
    this.membership = membership;
    this.status = status;
    this.promote = promote;
  }

  @Override
  public void run() {
    if (!status.get().isLeader()) {
      return;
    }
    ClusterMembers now = membership.current();
    now.learnerIds().stream().findFirst().ifPresent(id -> {
      if (!inFlight.compareAndSet(false, true)) {
        return;
      }
      promote.apply(id).whenComplete((members, error) -> {
        inFlight.set(false);
        if (error == null) {
          log.info("{} promoted learner {} to a voting member (caught up, auto-promote)",
              now.self(), Long.toHexString(id));
        } else {
          log.debug("{} not promoting learner {} yet: {}", now.self(), Long.toHexString(id), error.toString());
        }
      });
    });
  }
}
