package io.akkaetcd.api;

import akka.NotUsed;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.stream.BoundedSourceQueue;
import akka.stream.javadsl.Source;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.CurrentCall;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.auth.PermType;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.etcdserverpb.Watch;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.watch.WatchHub;
import io.akkaetcd.watch.WatchRouter;
import io.akkaetcd.watch.WatchStats;
import java.util.concurrent.atomic.AtomicLong;

/**
 * etcd's Watch service: one {@link WatchRouter} actor per gRPC stream, fed the client's requests,
 * answering through a bounded buffer ({@value #BUFFERED_RESPONSES} responses, and the router's
 * bound in bytes) so that a slow reader costs bounded memory. While auth is on, a watch is checked
 * as it is created (READ on its range, etcd's isWatchPermitted); a denied one is answered created
 * and canceled, watch id -1, with the reason, and the stream goes on.
 */
public final class WatchService implements Watch {
  static final int BUFFERED_RESPONSES = 128;

  private final EtcdMember member;
  private final WatchHub hub;
  private final ActorSystem<?> system;
  /** Numbers watch streams per JVM: members inside one host system name their routers apart. */
  private static final AtomicLong STREAMS = new AtomicLong();
  private final java.time.Duration progressInterval;
  private final AuthApplier auth;

  public WatchService(EtcdMember member, WatchHub hub, ActorSystem<?> system,
      java.time.Duration progressInterval, AuthApplier auth) {
    this.auth = auth;
    this.progressInterval = progressInterval;
    this.member = member;
    this.hub = hub;
    this.system = system;
  }

  /**
   * The buffer is materialized with the response stream itself, not ahead of it, so that it runs
   * fused in that stream's graph: one graph and actor less per watch stream (about a third of an
   * idle stream's heap). The router starts when the response stream does.
   */
  @Override
  public Source<WatchResponse, NotUsed> watch(Source<WatchRequest, NotUsed> in) {
    AuthInfo who = CurrentCall.authInfo();
    Call call = CurrentCall.call();
    EtcdError refused = call == null ? null : call.refusedCredential();
    WatchStats.Stream stats = hub.stats().stream();
    ActorRef<WatchRouter.Command>[] router = new ActorRef[1];
    return Source.<WatchResponse>queue(BUFFERED_RESPONSES)
        .mapMaterializedValue(queue -> {
          router[0] = start(in, queue, who, refused, stats);
          return NotUsed.getInstance();
        })
        // what leaves the buffer for the client: etcd's sendLoop reports it as it takes a response
        .map(r -> {
          stats.sent(r.getEventsCount(), r.getSerializedSize());
          return r;
        })
        .watchTermination((mat, done) -> {
          done.whenComplete((d, e) -> router[0].tell(WatchRouter.StreamEnded.INSTANCE));
          return mat;
        });
  }

  /** The stream's router, registered with the hub, fed the client's requests. */
  private ActorRef<WatchRouter.Command> start(Source<WatchRequest, NotUsed> in, BoundedSourceQueue<WatchResponse> out,
      AuthInfo who, EtcdError refused, WatchStats.Stream stats) {
    ActorRef<WatchRouter.Command>[] self = new ActorRef[1];
    ActorRef<WatchRouter.Command> router = system.systemActorOf(
        WatchRouter.create(member.store(), out, member::header,
            member.maxRequestBytes() + GrpcErrors.RECEIVE_OVERHEAD_BYTES, progressInterval, stats,
            () -> hub.unregister(self[0])),
        "watch-stream-" + STREAMS.incrementAndGet(),
        // where the response stream it feeds runs: an event reaches the connection with no other
        // thread woken on the way (a wake per event from the read dispatcher before)
        DispatcherSelector.defaultDispatcher());
    self[0] = router;
    hub.register(router);
    in.runForeach(req -> {
      if (req.hasCreateRequest() && (refused != null || !permitted(who, req.getCreateRequest()))) {
        // etcd 3.4's isWatchPermitted: the token error or "permission denied" as Go prints a
        // status error; through the router, so it comes in turn with the stream's other answers
        router.tell(new WatchRouter.Refused((refused != null ? refused : EtcdError.PERMISSION_DENIED).goStatusText()));
      } else {
        router.tell(new WatchRouter.Request(req));
      }
    }, system)
        .whenComplete((done, error) -> router.tell(WatchRouter.StreamEnded.INSTANCE));
    return router;
  }

  private boolean permitted(AuthInfo who, WatchCreateRequest create) {
    AuthState state = auth.state();
    try {
      state.checkPermitted(who, create.getKey(), create.getRangeEnd(), PermType.READ);
      return true;
    } catch (EtcdException e) {
      return false;
    }
  }
}
