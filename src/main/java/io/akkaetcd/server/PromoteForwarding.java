package io.akkaetcd.server;

import akka.actor.AbstractActor;
import akka.actor.ActorSelection;
import akka.actor.ActorSystem;
import akka.actor.Props;
import akka.pattern.Patterns;
import io.akkaetcd.api.EtcdError;
import io.akkaetcd.api.EtcdException;
import io.akkaetcd.proto.peerpb.PromoteRequest;
import io.akkaetcd.proto.peerpb.PromoteResponse;
import io.akkaetcd.raft.peer.PeerFilter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongFunction;

/**
 * MemberPromote asked of a member that does not lead goes to the leader, which alone knows how far
 * the learner has caught up (etcd forwards it the same way, over its peer API). The leader's
 * endpoint lives at {@code /system/}{@value #ENDPOINT} and answers with etcd's error text, or none
 * once the promotion is applied there.
 */
final class PromoteForwarding {
  static final String ENDPOINT = "promote";

  private final ActorSystem system;
  private final LongFunction<String> addressOf;
  private final Duration timeout;
  private final PeerFilter filter;
  private final long clusterId;

  /**
   * @param addressOf a member's Artery address by id (null if unknown)
   * @param clusterId this member's cluster: requests carry it, and the endpoint drops others'
   */
  PromoteForwarding(ActorSystem system, LongFunction<String> addressOf, Duration timeout, PeerFilter filter,
      long clusterId) {
    this.clusterId = clusterId;
    this.system = system;
    this.addressOf = addressOf;
    this.timeout = timeout;
    this.filter = filter;
  }

  /** Asks {@code leader} to promote learner {@code id}; fails with the leader's error. */
  CompletionStage<Void> forward(long leader, long id) {
    String address = leader == 0 ? null : addressOf.apply(leader);
    if (address == null || filter.blocked(leader)) {
      return CompletableFuture.failedFuture(EtcdError.NO_LEADER.exception());
    }
    ActorSelection endpoint = system.actorSelection(address + "/system/" + ENDPOINT);
    return Patterns.ask(endpoint, PromoteRequest.newBuilder().setId(id).setClusterId(clusterId).build(), timeout).handle((reply, error) -> {
      if (error != null || !(reply instanceof PromoteResponse r)) {
        throw EtcdError.TIMEOUT.exception();
      }
      if (!r.getError().isEmpty()) {
        throw EtcdError.byText(r.getError()).orElse(EtcdError.UNHEALTHY).exception();
      }
      return null;
    });
  }

  /** The leader's side: promotes with {@code promote} (which refuses if this member no longer leads). */
  static Props endpoint(java.util.function.LongFunction<CompletionStage<?>> promote, long clusterId) {
    return Props.create(Endpoint.class, () -> new Endpoint(promote, clusterId));
  }

  private static final class Endpoint extends AbstractActor {
    private final java.util.function.LongFunction<CompletionStage<?>> promote;
    private final long clusterId;

    Endpoint(java.util.function.LongFunction<CompletionStage<?>> promote, long clusterId) {
      this.promote = promote;
      this.clusterId = clusterId;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().match(PromoteRequest.class, r -> r.getClusterId() == clusterId, r -> {
        akka.actor.ActorRef asker = getSender();
        promote.apply(r.getId()).whenComplete((done, error) -> {
          Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
          String text = cause == null ? ""
              : cause instanceof EtcdException e ? e.error().text() : EtcdError.TIMEOUT.text();
          asker.tell(PromoteResponse.newBuilder().setError(text).build(), akka.actor.ActorRef.noSender());
        });
      }).build();
    }
  }
}
