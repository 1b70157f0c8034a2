package io.akkaetcd.corrupt;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.TimerScheduler;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's monitorKVHash: every interval after the last round, if this member leads, a periodic
 * corruption check; a mismatch raises the CORRUPT alarm through Raft for the member found
 * (etcd's AlarmRequest ACTIVATE CORRUPT with that member's id). One round at a time.
 */
public final class CorruptMonitor {
  private static final Logger log = LoggerFactory.getLogger(CorruptMonitor.class);

  public sealed interface Command {}

  private enum Tick implements Command { INSTANCE }

  private record Checked(OptionalLong corrupt, Throwable failure) implements Command {}

  private final ActorContext<Command> ctx;
  private final TimerScheduler<Command> timers;
  private final Duration interval;
  private final BooleanSupplier leading;
  private final Supplier<CompletionStage<OptionalLong>> check;
  private final LongFunction<CompletionStage<?>> raiseCorrupt;

  private CorruptMonitor(ActorContext<Command> ctx, TimerScheduler<Command> timers, Duration interval,
      BooleanSupplier leading, Supplier<CompletionStage<OptionalLong>> check,
      LongFunction<CompletionStage<?>> raiseCorrupt) {
    this.ctx = ctx;
    this.timers = timers;
    this.interval = interval;
    this.leading = leading;
    this.check = check;
    this.raiseCorrupt = raiseCorrupt;
  }

  /**
   * @param check one round ({@link CorruptionChecks#periodicCheck}): the member to alarm, if any
   * @param raiseCorrupt proposes ACTIVATE CORRUPT for a member id
   */
  public static Behavior<Command> create(long self, Duration interval, BooleanSupplier leading,
      Supplier<CompletionStage<OptionalLong>> check, LongFunction<CompletionStage<?>> raiseCorrupt) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      log.info("{} enabled corruption checking every {}", Long.toHexString(self), interval);
      CorruptMonitor m = new CorruptMonitor(ctx, timers, interval, leading, check, raiseCorrupt);
      m.scheduleNext();
      return m.behavior();
    }));
  }

  private Behavior<Command> behavior() {
    return Behaviors.receive(Command.class)
        .onMessage(Tick.class, t -> onTick())
        .onMessage(Checked.class, this::onChecked)
        .build();
  }

  private void scheduleNext() {
    timers.startSingleTimer(Tick.INSTANCE, interval);
  }

  private Behavior<Command> onTick() {
    if (!leading.getAsBoolean()) {
      scheduleNext();
      return Behaviors.same();
    }
    ctx.pipeToSelf(check.get(), Checked::new);
    return Behaviors.same();
  }

  private Behavior<Command> onChecked(Checked c) {
    if (c.failure() != null) {
      log.warn("failed to check hash KV: {}", c.failure().toString());
    } else {
      c.corrupt().ifPresent(id -> raiseCorrupt.apply(id).whenComplete((r, e) -> {
        if (e != null) {
          log.warn("failed to publish corrupt alarm for {}: {}", Long.toHexString(id), e.toString());
        }
      }));
    }
    scheduleNext();
    return Behaviors.same();
  }
}
