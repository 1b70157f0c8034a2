package io.akkaetcd.api;

import akka.NotUsed;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.japi.Pair;
import akka.stream.BoundedSourceQueue;
import akka.stream.javadsl.Source;
import io.akkaetcd.proto.etcdserverpb.Watch;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.watch.WatchHub;
import io.akkaetcd.watch.WatchRouter;
import java.util.concurrent.atomic.AtomicLong;

/**
 * etcd's Watch service: one {@link WatchRouter} actor per gRPC stream, fed the client's requests,
 * answering through a bounded buffer ({@value #BUFFERED_RESPONSES} responses) so that a slow
 * reader costs bounded memory.
 */
public final class WatchService implements Watch {
  static final int BUFFERED_RESPONSES = 128;

  private final EtcdMember member;
  private final WatchHub hub;
  private final ActorSystem<?> system;
  /** Numbers watch streams per JVM: members inside one host system name their routers apart. */
  private static final AtomicLong STREAMS = new AtomicLong();
  private final java.time.Duration progressInterval;

  public WatchService(EtcdMember member, WatchHub hub, ActorSystem<?> system,
      java.time.Duration progressInterval) {
    this.progressInterval = progressInterval;
    this.member = member;
    this.hub = hub;
    this.system = system;
  }

  @Override
  public Source<WatchResponse, NotUsed> watch(Source<WatchRequest, NotUsed> in) {
    Pair<BoundedSourceQueue<WatchResponse>, Source<WatchResponse, NotUsed>> out =
        Source.<WatchResponse>queue(BUFFERED_RESPONSES).preMaterialize(system);
    ActorRef<WatchRouter.Command>[] self = new ActorRef[1];
    ActorRef<WatchRouter.Command> router = system.systemActorOf(
        WatchRouter.create(member.store(), out.first(), member::header,
            member.maxRequestBytes() + GrpcErrors.RECEIVE_OVERHEAD_BYTES, progressInterval,
            () -> hub.unregister(self[0])),
        "watch-stream-" + STREAMS.incrementAndGet(),
        DispatcherSelector.fromConfig("akka-etcd.read-dispatcher"));
    self[0] = router;
    hub.register(router);
    in.runForeach(req -> router.tell(new WatchRouter.Request(req)), system)
        .whenComplete((done, error) -> router.tell(WatchRouter.StreamEnded.INSTANCE));
    return out.second().watchTermination((mat, done) -> {
      done.whenComplete((d, e) -> router.tell(WatchRouter.StreamEnded.INSTANCE));
      return mat;
    });
  }
}
