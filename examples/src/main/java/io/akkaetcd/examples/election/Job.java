package io.akkaetcd.examples.election;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.TimerScheduler;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;

/**
 * The leader's job: a counter in the store, one more every tick, carried on by the next leader.
 * Each write is fenced by the term, as etcd's election recipe fences a leader's writes: it applies
 * only while the election key still has the create revision it had when this node won. A write
 * that finds another term stops the job. Invariant: one write or read in flight at a time; the
 * count is re-read after a write whose outcome is unknown.
 */
final class Job extends AbstractBehavior<Job.Command> {
  sealed interface Command {}

  private enum Tick implements Command { INSTANCE }

  private record CountRead(long count) implements Command {}

  private record Counted(long count) implements Command {}

  private enum Deposed implements Command { INSTANCE }

  private record Failed(Throwable cause) implements Command {}

  private final EtcdClient client;
  private final Settings settings;
  private final long term;
  /** The counter's value as this job last read or wrote it; -1 while unknown. */
  private long count = -1;
  private boolean busy;

  static Behavior<Command> create(EtcdClient client, Settings settings, long term) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new Job(ctx, timers, client, settings, term)));
  }

  private Job(ActorContext<Command> ctx, TimerScheduler<Command> timers, EtcdClient client, Settings settings,
      long term) {
    super(ctx);
    this.client = client;
    this.settings = settings;
    this.term = term;
    timers.startTimerAtFixedRate(Tick.INSTANCE, settings.tickInterval());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessageEquals(Tick.INSTANCE, this::onTick)
        .onMessage(CountRead.class, this::onCountRead)
        .onMessage(Counted.class, this::onCounted)
        .onMessageEquals(Deposed.INSTANCE, this::onDeposed)
        .onMessage(Failed.class, this::onFailed)
        .build();
  }

  private Behavior<Command> onTick() {
    if (busy) {
      return this;
    }
    busy = true;
    if (count < 0) {
      getContext().pipeToSelf(client.kv().get(Keys.utf8(settings.counterKey())), (r, e) -> e != null ? new Failed(e)
          : new CountRead(r.getKvsCount() == 0 ? 0 : Long.parseLong(r.getKvs(0).getValue().toStringUtf8())));
    } else {
      long next = count + 1;
      TxnRequest fenced = TxnRequest.newBuilder()
          .addCompare(Compare.newBuilder().setKey(Keys.utf8(settings.electionKey()))
              .setTarget(Compare.CompareTarget.CREATE).setResult(Compare.CompareResult.EQUAL).setCreateRevision(term))
          .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder()
              .setKey(Keys.utf8(settings.counterKey())).setValue(Keys.utf8(Long.toString(next)))))
          .build();
      getContext().pipeToSelf(client.kv().txn(fenced),
          (r, e) -> e != null ? new Failed(e) : r.getSucceeded() ? new Counted(next) : Deposed.INSTANCE);
    }
    return this;
  }

  private Behavior<Command> onCountRead(CountRead read) {
    busy = false;
    count = read.count();
    return this;
  }

  private Behavior<Command> onCounted(Counted counted) {
    busy = false;
    count = counted.count();
    Report.tick(settings.name(), term, count);
    return this;
  }

  private Behavior<Command> onDeposed() {
    getContext().getLog().info("{}: the election key is no longer term {}'s; stopping the job", settings.name(), term);
    return Behaviors.stopped();
  }

  private Behavior<Command> onFailed(Failed failed) {
    getContext().getLog().info("{}: job step failed ({}); reading the count again", settings.name(),
        failed.cause().getMessage());
    busy = false;
    count = -1;
    return this;
  }
}
