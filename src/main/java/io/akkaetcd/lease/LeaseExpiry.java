package io.akkaetcd.lease;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import io.akkaetcd.raft.member.RaftStatus;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpoint;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpointRequest;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Every 500 ms, on the leader only: gives every lease its full TTL (or its checkpointed remaining
 * TTL) when this member has just become leader, then proposes a revoke for each expired lease, at
 * most {@value #REVOKES_PER_TICK} a tick (1000 a second, etcd's leaseRevokeRate) so that a mass
 * expiry cannot stall the log, and one entry of the checkpoints due, at most
 * {@value #CHECKPOINTS_PER_TICK} (etcd's maxLeaseCheckpointBatchSize). A member that is not
 * leader never revokes nor checkpoints.
 */
public final class LeaseExpiry {
  static final int REVOKES_PER_TICK = 500;
  static final int CHECKPOINTS_PER_TICK = 1000;
  static final Duration TICK = Duration.ofMillis(500);

  private enum Tick { INSTANCE }

  private LeaseExpiry() {}

  public static Behavior<Object> create(Lessor lessor, LeaseKeeper keeper, Supplier<RaftStatus> status,
      LongFunction<CompletionStage<?>> proposeRevoke,
      Function<LeaseCheckpointRequest, CompletionStage<?>> proposeCheckpoint) {
    return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK);
      return Behaviors.receiveMessage(msg -> {
        RaftStatus s = status.get();
        if (!s.isLeader()) {
          keeper.demoted();
          return Behaviors.same();
        }
        keeper.promoteOnce(s.term(), lessor);
        for (long id : keeper.expired(REVOKES_PER_TICK)) {
          proposeRevoke.apply(id).whenComplete((r, e) -> {
            if (e != null) {
              ctx.getLog().debug("revoke of expired lease {} failed ({}); it will be retried", id, e.getMessage());
            }
          });
        }
        List<long[]> due = keeper.dueCheckpoints(CHECKPOINTS_PER_TICK, lessor::remainingTtl);
        if (!due.isEmpty()) {
          LeaseCheckpointRequest.Builder cp = LeaseCheckpointRequest.newBuilder();
          due.forEach(d -> cp.addCheckpoints(LeaseCheckpoint.newBuilder().setID(d[0]).setRemainingTTL(d[1])));
          proposeCheckpoint.apply(cp.build()).whenComplete((r, e) -> {
            if (e != null) {
              ctx.getLog().debug("lease checkpoint failed ({}); the next interval's goes", e.getMessage());
            }
          });
        }
        return Behaviors.same();
      });
    }));
  }
}
