package io.akkaetcd.examples.election;

import akka.Done;
import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.PreRestart;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.TimerScheduler;
import akka.japi.Pair;
import akka.stream.KillSwitches;
import akka.stream.UniqueKillSwitch;
import akka.stream.javadsl.Keep;
import akka.stream.javadsl.Sink;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Applies the configuration under a prefix: reads it once, then watches it from the revision
 * after that read. A watch that ends is resumed from the revision after the last one applied, so
 * no change is missed or applied twice; a watch whose revision was compacted away reads the whole
 * prefix again. Invariant: {@link #config} is the prefix's content as of {@link #revision}.
 */
final class ConfigWatcher extends AbstractBehavior<ConfigWatcher.Command> {
  sealed interface Command {}

  private record Loaded(RangeResponse response) implements Command {}

  private record Changed(long watch, WatchResponse response) implements Command {}

  private record WatchEnded(long watch) implements Command {}

  private record LoadFailed(Throwable cause) implements Command {}

  private enum Resume implements Command { INSTANCE }

  private static final Duration RETRY = Duration.ofSeconds(1);

  private final EtcdClient client;
  private final String prefix;
  private final TimerScheduler<Command> timers;
  private final Map<String, String> config = new HashMap<>();
  /** The store's revision {@link #config} reflects; 0 until the first read. */
  private long revision;
  /** The running watch's number: messages of earlier ones are ignored. */
  private long watch;
  private UniqueKillSwitch running;

  static Behavior<Command> create(EtcdClient client, String prefix) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new ConfigWatcher(ctx, timers, client, prefix)));
  }

  private ConfigWatcher(ActorContext<Command> ctx, TimerScheduler<Command> timers, EtcdClient client, String prefix) {
    super(ctx);
    this.client = client;
    this.prefix = prefix;
    this.timers = timers;
    load();
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Loaded.class, this::onLoaded)
        .onMessage(LoadFailed.class, this::onLoadFailed)
        .onMessage(Changed.class, this::onChanged)
        .onMessage(WatchEnded.class, this::onWatchEnded)
        .onMessageEquals(Resume.INSTANCE, this::onResume)
        .onSignal(PreRestart.class, s -> stopped())
        .onSignal(PostStop.class, s -> stopped())
        .build();
  }

  private void load() {
    RangeRequest all = RangeRequest.newBuilder().setKey(Keys.utf8(prefix)).setRangeEnd(Keys.prefixEnd(prefix)).build();
    getContext().pipeToSelf(client.kv().range(all), (r, e) -> e == null ? new Loaded(r) : new LoadFailed(e));
  }

  private Behavior<Command> onLoaded(Loaded loaded) {
    Map<String, String> now = new HashMap<>();
    for (KeyValue kv : loaded.response().getKvsList()) {
      now.put(kv.getKey().toStringUtf8(), kv.getValue().toStringUtf8());
    }
    for (String gone : config.keySet().stream().filter(k -> !now.containsKey(k)).toList()) {
      apply(gone, null);
    }
    now.forEach(this::apply);
    revision = loaded.response().getHeader().getRevision();
    startWatch();
    return this;
  }

  private Behavior<Command> onLoadFailed(LoadFailed failed) {
    getContext().getLog().info("reading {} failed ({}); retrying", prefix, failed.cause().getMessage());
    timers.startSingleTimer(Resume.INSTANCE, RETRY);
    return this;
  }

  /** Watches the prefix from the revision after {@link #revision}. */
  private void startWatch() {
    stopWatch();
    long id = ++watch;
    ActorRef<Command> self = getContext().getSelf();
    WatchCreateRequest request = WatchCreateRequest.newBuilder().setKey(Keys.utf8(prefix))
        .setRangeEnd(Keys.prefixEnd(prefix)).setStartRevision(revision + 1).build();
    Pair<UniqueKillSwitch, CompletionStage<Done>> m = client.watch().watch(request)
        .viaMat(KillSwitches.single(), Keep.right())
        .toMat(Sink.foreach(r -> self.tell(new Changed(id, r))), Keep.both())
        .run(getContext().getSystem());
    running = m.first();
    m.second().whenComplete((done, e) -> self.tell(new WatchEnded(id)));
  }

  private Behavior<Command> onChanged(Changed changed) {
    if (changed.watch() != watch) {
      return this;
    }
    WatchResponse r = changed.response();
    if (r.getCanceled() && r.getCompactRevision() > 0) {
      getContext().getLog().info("{} compacted past revision {}; reading it again", prefix, revision + 1);
      stopWatch();
      load();
      return this;
    }
    for (Event e : r.getEventsList()) {
      // A resumed watch starts after the last revision applied: nothing comes twice.
      apply(e.getKv().getKey().toStringUtf8(),
          e.getType() == Event.EventType.DELETE ? null : e.getKv().getValue().toStringUtf8());
      revision = Math.max(revision, e.getKv().getModRevision());
    }
    return this;
  }

  private Behavior<Command> onWatchEnded(WatchEnded ended) {
    if (ended.watch() == watch) {
      getContext().getLog().info("watch of {} ended; resuming after revision {}", prefix, revision);
      timers.startSingleTimer(Resume.INSTANCE, RETRY);
    }
    return this;
  }

  private Behavior<Command> onResume() {
    if (revision == 0) {
      load();
    } else {
      startWatch();
    }
    return this;
  }

  /** Applies one key's new value (null: deleted). Here "applying" is telling it. */
  private void apply(String key, String value) {
    if (value == null) {
      if (config.remove(key) != null) {
        Report.configDeleted(key);
      }
    } else if (!value.equals(config.put(key, value))) {
      Report.config(key, value);
    }
  }

  private void stopWatch() {
    watch++;
    if (running != null) {
      running.shutdown();
      running = null;
    }
  }

  /** On stop or restart: end the watch. */
  private Behavior<Command> stopped() {
    stopWatch();
    return this;
  }
}
