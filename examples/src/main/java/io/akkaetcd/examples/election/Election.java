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
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Campaigns for the election key as etcd's election recipe does (clientv3 concurrency): a lease
 * kept alive while this node lives, and a txn that puts the key with that lease only if the key
 * does not exist ({@code create_revision == 0}). The winner leads for a term, the key's create
 * revision, and runs the {@link Job} while it holds the key; a loser watches the key and campaigns
 * again once it is deleted (its holder's lease expired). Invariants: at most one Job, and only
 * while leading; a stream or txn result from an earlier campaign or watch ({@link #epoch}), or about
 * an abandoned lease, is ignored.
 */
final class Election extends AbstractBehavior<Election.Command> {
  sealed interface Command {}

  private record LeaseGranted(long leaseId) implements Command {}

  private record Renewed(long leaseId, long ttl) implements Command {}

  private record KeepAliveEnded(long leaseId, Throwable cause) implements Command {}

  private record Campaigned(long epoch, TxnResponse response) implements Command {}

  private record KeyDeleted(long epoch) implements Command {}

  private record KeyWatchEnded(long epoch) implements Command {}

  private record JobStopped(long term) implements Command {}

  private record Failed(String what, Throwable cause) implements Command {}

  /** A timer: grant a lease if there is none, else campaign. */
  private enum Retry implements Command { INSTANCE }

  private record RestartKeepAlive(long leaseId) implements Command {}

  private static final Duration RETRY = Duration.ofMillis(500);

  private final EtcdClient client;
  private final Settings settings;
  private final TimerScheduler<Command> timers;
  /** The lease this node campaigns with; 0 while none is granted. */
  private long leaseId;
  private UniqueKillSwitch keepAlive;
  /** Bumped at every campaign and watch: results of older ones are ignored. */
  private long epoch;
  private UniqueKillSwitch keyWatch;
  /** The term this node leads in; 0 unless leading. */
  private long leadingTerm;
  private ActorRef<Job.Command> job;
  /** The term of the leader this node last reported following; 0 if none. */
  private long followedTerm;

  static Behavior<Command> create(EtcdClient client, Settings settings) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new Election(ctx, timers, client, settings)));
  }

  private Election(ActorContext<Command> ctx, TimerScheduler<Command> timers, EtcdClient client, Settings settings) {
    super(ctx);
    this.client = client;
    this.settings = settings;
    this.timers = timers;
    grantLease();
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(LeaseGranted.class, this::onLeaseGranted)
        .onMessage(Renewed.class, this::onRenewed)
        .onMessage(KeepAliveEnded.class, this::onKeepAliveEnded)
        .onMessage(RestartKeepAlive.class, this::onRestartKeepAlive)
        .onMessage(Campaigned.class, this::onCampaigned)
        .onMessage(KeyDeleted.class, this::onKeyDeleted)
        .onMessage(KeyWatchEnded.class, this::onKeyWatchEnded)
        .onMessage(JobStopped.class, this::onJobStopped)
        .onMessage(Failed.class, this::onFailed)
        .onMessageEquals(Retry.INSTANCE, this::onRetry)
        .onSignal(PreRestart.class, s -> stopped())
        .onSignal(PostStop.class, s -> stopped())
        .build();
  }

  private void grantLease() {
    getContext().pipeToSelf(client.lease().grant(settings.leaseTtl().toSeconds()),
        (r, e) -> e == null ? new LeaseGranted(r.getID()) : new Failed("lease grant", e));
  }

  private Behavior<Command> onLeaseGranted(LeaseGranted granted) {
    leaseId = granted.leaseId();
    keepLeaseAlive();
    campaign();
    return this;
  }

  /** Renews the lease every third of its TTL; an answer with TTL 0 means it is gone. */
  private void keepLeaseAlive() {
    long id = leaseId;
    ActorRef<Command> self = getContext().getSelf();
    Pair<UniqueKillSwitch, CompletionStage<Done>> running = client.lease().keepAlive(id, settings.keepAliveInterval())
        .viaMat(KillSwitches.single(), Keep.right())
        .toMat(Sink.foreach(r -> self.tell(new Renewed(id, r.getTTL()))), Keep.both())
        .run(getContext().getSystem());
    keepAlive = running.first();
    running.second().whenComplete((done, e) -> self.tell(new KeepAliveEnded(id, e)));
  }

  private Behavior<Command> onRenewed(Renewed renewed) {
    if (renewed.leaseId() != leaseId) {
      return this;
    }
    return renewed.ttl() <= 0 ? leaseLost("expired") : this;
  }

  /**
   * A keep-alive stream fails while the cluster has no leader, say: renew again shortly. The lease
   * is lost only when the cluster says so (TTL 0, or "requested lease not found" to a campaign), as a
   * new Raft leader extends every lease; a leader whose lease did expire also sees its key deleted.
   * The job's writes are fenced by the term, so a node that still believes it leads cannot write
   * after another has won.
   */
  private Behavior<Command> onKeepAliveEnded(KeepAliveEnded ended) {
    if (ended.leaseId() != leaseId) {
      return this;
    }
    getContext().getLog().info("{}: keep-alive ended ({}); renewing again", settings.name(),
        ended.cause() == null ? "completed" : ended.cause().getMessage());
    timers.startSingleTimer(new RestartKeepAlive(leaseId), RETRY);
    return this;
  }

  private Behavior<Command> onRestartKeepAlive(RestartKeepAlive restart) {
    if (restart.leaseId() == leaseId) {
      keepLeaseAlive();
    }
    return this;
  }

  private Behavior<Command> leaseLost(String why) {
    getContext().getLog().warn("{}: lease {} lost ({}); campaigning with a new one", settings.name(),
        Long.toHexString(leaseId), why);
    stepDown();
    abandonLease();
    grantLease();
    return this;
  }

  /** etcd's Campaign: put the key with our lease if nobody holds it, else read who does. */
  private void campaign() {
    long campaignEpoch = ++epoch;
    TxnRequest txn = TxnRequest.newBuilder()
        .addCompare(Compare.newBuilder().setKey(Keys.utf8(settings.electionKey()))
            .setTarget(Compare.CompareTarget.CREATE).setResult(Compare.CompareResult.EQUAL).setCreateRevision(0))
        .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder()
            .setKey(Keys.utf8(settings.electionKey())).setValue(Keys.utf8(settings.name())).setLease(leaseId)))
        .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder()
            .setKey(Keys.utf8(settings.electionKey()))))
        .build();
    getContext().pipeToSelf(client.kv().txn(txn),
        (r, e) -> e == null ? new Campaigned(campaignEpoch, r) : new Failed("campaign", e));
  }

  private Behavior<Command> onCampaigned(Campaigned result) {
    if (result.epoch() != epoch) {
      return this;
    }
    long revision = result.response().getHeader().getRevision();
    if (result.response().getSucceeded()) {
      lead(revision, revision + 1); // our put created the key at this revision
      return this;
    }
    var holders = result.response().getResponses(0).getResponseRange().getKvsList();
    if (holders.isEmpty()) {
      campaign(); // deleted between the compare and the read: try again
      return this;
    }
    KeyValue holder = holders.get(0);
    if (holder.getLease() == leaseId) {
      lead(holder.getCreateRevision(), revision + 1); // ours already, from an earlier campaign
    } else {
      follow(holder.getValue().toStringUtf8(), holder.getCreateRevision(), revision + 1);
    }
    return this;
  }

  private void lead(long term, long watchFrom) {
    if (leadingTerm != term) {
      stepDown();
      leadingTerm = term;
      followedTerm = 0;
      Report.leader(settings.name(), term);
      job = getContext().spawn(Job.create(client, settings, term), "job-" + term);
      getContext().watchWith(job, new JobStopped(term));
    }
    watchKey(watchFrom); // a leader whose key is deleted (its lease expired) steps down
  }

  private void follow(String leader, long term, long watchFrom) {
    stepDown();
    if (followedTerm != term) {
      followedTerm = term;
      Report.follower(settings.name(), leader, term);
    }
    watchKey(watchFrom);
  }

  private void stepDown() {
    if (leadingTerm != 0) {
      Report.resigned(settings.name(), leadingTerm);
      getContext().stop(job);
      job = null;
      leadingTerm = 0;
    }
  }

  /** Watches the election key from {@code fromRevision} until it is deleted. */
  private void watchKey(long fromRevision) {
    cancelKeyWatch();
    long watchEpoch = ++epoch;
    ActorRef<Command> self = getContext().getSelf();
    WatchCreateRequest request = WatchCreateRequest.newBuilder().setKey(Keys.utf8(settings.electionKey()))
        .setStartRevision(fromRevision).addFilters(WatchCreateRequest.FilterType.NOPUT).build();
    Pair<UniqueKillSwitch, CompletionStage<Done>> running = client.watch().watch(request)
        .takeWhile(r -> !r.getCanceled())
        .mapConcat(WatchResponse::getEventsList)
        .filter(e -> e.getType() == Event.EventType.DELETE)
        .take(1)
        .viaMat(KillSwitches.single(), Keep.right())
        .toMat(Sink.foreach(e -> self.tell(new KeyDeleted(watchEpoch))), Keep.both())
        .run(getContext().getSystem());
    keyWatch = running.first();
    running.second().whenComplete((done, e) -> self.tell(new KeyWatchEnded(watchEpoch)));
  }

  private Behavior<Command> onKeyDeleted(KeyDeleted deleted) {
    if (deleted.epoch() == epoch) {
      stepDown();
      campaign();
    }
    return this;
  }

  /** The watch ended without a deletion (the member stopped serving it): look again shortly. */
  private Behavior<Command> onKeyWatchEnded(KeyWatchEnded ended) {
    if (ended.epoch() == epoch) {
      timers.startSingleTimer(Retry.INSTANCE, RETRY);
    }
    return this;
  }

  /** The job stops when its fenced write fails: this node no longer holds the key. */
  private Behavior<Command> onJobStopped(JobStopped stopped) {
    if (stopped.term() == leadingTerm) {
      job = null;
      Report.resigned(settings.name(), leadingTerm);
      leadingTerm = 0;
      campaign();
    }
    return this;
  }

  private Behavior<Command> onFailed(Failed failed) {
    if (failed.cause() instanceof EtcdException e && e.error() == EtcdError.LEASE_NOT_FOUND && leaseId != 0) {
      return leaseLost("the cluster no longer has it"); // expired while its keep-alives went unanswered
    }
    getContext().getLog().info("{}: {} failed ({}); retrying", settings.name(), failed.what(),
        failed.cause().getMessage());
    timers.startSingleTimer(Retry.INSTANCE, RETRY);
    return this;
  }

  private Behavior<Command> onRetry() {
    if (leaseId == 0) {
      grantLease();
    } else {
      campaign();
    }
    return this;
  }

  private void cancelKeyWatch() {
    if (keyWatch != null) {
      keyWatch.shutdown();
      keyWatch = null;
    }
  }

  /**
   * Stops renewing the lease and revokes it, so that a key it holds goes at once rather than after
   * its TTL (etcd's Resign), and forgets everything started under it.
   */
  private void abandonLease() {
    if (leaseId != 0) {
      client.lease().revoke(leaseId); // best effort: unrevoked, it expires
    }
    if (keepAlive != null) {
      keepAlive.shutdown();
      keepAlive = null;
    }
    cancelKeyWatch();
    epoch++;
    leaseId = 0;
  }

  /** On stop or restart: resign (revoke the lease) and end the streams. */
  private Behavior<Command> stopped() {
    abandonLease();
    return this;
  }
}
