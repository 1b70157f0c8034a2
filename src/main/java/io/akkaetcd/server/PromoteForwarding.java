package io.akkaetcd.server;

import akka.actor.AbstractActor;
import akka.actor.ActorRef;
import akka.actor.Props;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.proto.peerpb.PromoteRequest;
import io.akkaetcd.proto.peerpb.PromoteResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;
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

  private final PeerAsk peers;
  private final Duration timeout;
  private final long clusterId;

  /** @param clusterId this member's cluster: requests carry it, and the endpoint drops others' */
  PromoteForwarding(PeerAsk peers, Duration timeout, long clusterId) {
    this.peers = peers;
    this.timeout = timeout;
    this.clusterId = clusterId;
  }

  /** Asks {@code leader} to promote learner {@code id}; fails with the leader's error. */
  CompletionStage<Void> forward(long leader, long id) {
    PromoteRequest request = PromoteRequest.newBuilder().setId(id).setClusterId(clusterId).build();
    return peers.ask(leader, "/system/" + ENDPOINT, request, timeout).handle((reply, error) -> {
      Throwable cause = unwrapped(error);
      if (cause instanceof EtcdException e) {
        throw e; // no leader to ask
      }
      if (cause != null || !(reply instanceof PromoteResponse r)) {
        throw EtcdError.TIMEOUT.exception();
      }
      if (!r.getError().isEmpty()) {
        throw EtcdError.byText(r.getError()).orElse(EtcdError.UNHEALTHY).exception();
      }
      return null;
    });
  }

  /** A failed stage's own error, without the CompletionException a dependent stage wraps it in. */
  private static Throwable unwrapped(Throwable error) {
    return error instanceof CompletionException ? error.getCause() : error;
  }

  /** The leader's side: promotes with {@code promote} (which refuses if this member no longer leads). */
  static Props endpoint(LongFunction<CompletionStage<?>> promote, long clusterId) {
    return Props.create(Endpoint.class, () -> new Endpoint(promote, clusterId));
  }

  private static final class Endpoint extends AbstractActor {
    private final LongFunction<CompletionStage<?>> promote;
    private final long clusterId;

    Endpoint(LongFunction<CompletionStage<?>> promote, long clusterId) {
      this.promote = promote;
      this.clusterId = clusterId;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().match(PromoteRequest.class, r -> r.getClusterId() == clusterId, r -> {
        ActorRef asker = getSender();
        promote.apply(r.getId()).whenComplete((done, error) -> {
          Throwable cause = unwrapped(error);
          String text = cause == null ? ""
              : cause instanceof EtcdException e ? e.error().text() : EtcdError.TIMEOUT.text();
          asker.tell(PromoteResponse.newBuilder().setError(text).build(), ActorRef.noSender());
        });
      }).build();
    }
  }
}
