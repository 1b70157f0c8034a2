package io.akkaetcd.lease;

import akka.actor.AbstractActor;
import akka.actor.Props;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.proto.peerpb.LeaseRenewRequest;
import io.akkaetcd.proto.peerpb.LeaseRenewResponse;
import io.akkaetcd.raft.member.RaftStatus;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Keep-alives and time-to-live queries go to the leader, which alone keeps lease deadlines (etcd's
 * LeaseRenew forwarding): a member that is not the leader asks the leader's {@value #ENDPOINT}
 * actor over the peer transport. A lease's deadline therefore moves only where expiry is decided.
 *
 * <p>With no leader, or when the asked member is no longer the leader, the request fails with
 * "etcdserver: no leader" (Unavailable): clients retry, and the new leader has given every lease
 * its full TTL when it took the lead.
 */
public final class LeaseForwarding {
  /** The name of the leader-side actor, under /user on every member. */
  public static final String ENDPOINT = "leases";

  private final Lessor lessor;
  private final LeaseKeeper keeper;
  private final Supplier<RaftStatus> status;
  private final PeerAsk peers;
  private final Duration timeout;

  /** @param timeout how long to wait for the leader's answer */
  public LeaseForwarding(Lessor lessor, LeaseKeeper keeper, Supplier<RaftStatus> status, PeerAsk peers,
      Duration timeout) {
    this.lessor = lessor;
    this.keeper = keeper;
    this.status = status;
    this.peers = peers;
    this.timeout = timeout;
  }

  /** A keep-alive: the lease's TTL once the leader restarted its deadline, 0 if there is no such lease. */
  public CompletionStage<Long> renew(long id) {
    return ask(LeaseRenewRequest.newBuilder().setId(id).build());
  }

  /** Seconds left on the leader's clock, -1 if there is no such lease. */
  public CompletionStage<Long> remainingSeconds(long id) {
    return ask(LeaseRenewRequest.newBuilder().setId(id).setTimeToLive(true).build());
  }

  private CompletionStage<Long> ask(LeaseRenewRequest request) {
    RaftStatus s = status.get();
    if (s.isLeader()) {
      return CompletableFuture.completedFuture(answer(request).getTtl());
    }
    return peers.ask(s.leader(), "/user/" + ENDPOINT, request, timeout).handle((reply, error) -> {
      if (error != null || !(reply instanceof LeaseRenewResponse r) || !r.getLeader()) {
        throw EtcdError.NO_LEADER.exception();
      }
      return r.getTtl();
    });
  }

  /** The leader's answer, from its own keeper; a member that is not the leader says so. */
  private LeaseRenewResponse answer(LeaseRenewRequest request) {
    RaftStatus s = status.get();
    if (!s.isLeader()) {
      return LeaseRenewResponse.newBuilder().setLeader(false).build();
    }
    keeper.promoteOnce(s.term(), lessor);
    long id = request.getId();
    long ttl = request.getTimeToLive()
        ? (lessor.exists(id) ? keeper.remainingSeconds(id) : -1)
        : (lessor.exists(id) ? keeper.renew(id) : 0);
    return LeaseRenewResponse.newBuilder().setLeader(true).setTtl(ttl).build();
  }

  /** The actor that answers other members' requests on this member. */
  public Props endpointProps() {
    return Props.create(Endpoint.class, () -> new Endpoint(this));
  }

  private static final class Endpoint extends AbstractActor {
    private final LeaseForwarding forwarding;

    Endpoint(LeaseForwarding forwarding) {
      this.forwarding = forwarding;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder()
          .match(LeaseRenewRequest.class, r -> getSender().tell(forwarding.answer(r), getSelf()))
          .build();
    }
  }
}
