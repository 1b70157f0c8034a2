package io.akkaetcd.compactor;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a {@link CompactionPolicy} on a timer and proposes the compactions it asks for through
 * Raft, like any client's Compact. A compaction that fails (already compacted, no leader) is
 * logged and tried again at the next due time.
 */
public final class AutoCompactor {
  private static final Logger log = LoggerFactory.getLogger(AutoCompactor.class);

  private enum Sample { INSTANCE }

  private AutoCompactor() {}

  public static Behavior<Object> create(CompactionPolicy policy, LongSupplier currentRevision,
      BooleanSupplier isLeader, LongFunction<CompletionStage<?>> compact) {
    return Behaviors.<Object>setup(ctx -> Behaviors.withTimers(timers -> {
      long start = System.nanoTime();
      timers.startTimerWithFixedDelay(Sample.INSTANCE, policy.sampleInterval());
      return Behaviors.receiveMessage(msg -> {
        if (!isLeader.getAsBoolean()) {
          return Behaviors.same(); // etcd pauses auto-compaction on followers
        }
        Duration now = Duration.ofNanos(System.nanoTime() - start);
        OptionalLong rev = policy.onSample(now, currentRevision.getAsLong());
        if (rev.isPresent()) {
          long r = rev.getAsLong();
          log.info("auto-compaction: compacting to revision {}", r);
          compact.apply(r).whenComplete((x, e) -> {
            if (e != null) {
              log.warn("auto-compaction to revision {} failed: {}", r, e.getMessage());
            }
          });
        }
        return Behaviors.same();
      });
    }));
  }
}
