package io.akkaetcd.lease;

import akka.actor.AbstractActor;
import akka.actor.ActorSelection;
import akka.actor.ActorSystem;
import akka.actor.Props;
import akka.pattern.Patterns;
import io.akkaetcd.api.EtcdError;
import io.akkaetcd.proto.peerpb.LeaseRenewRequest;
import io.akkaetcd.proto.peerpb.LeaseRenewResponse;
import io.akkaetcd.raft.member.RaftStatus;
import io.akkaetcd.raft.peer.PeerFilter;
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
  private final java.util.function.LongFunction<ActorSelection> leaders;
  private final Duration timeout;
  private final PeerFilter filter;

  /**
   * @param peers every other member's leases endpoint by member id (null if unknown)
   * @param timeout how long to wait for the leader's answer
   * @param filter peers cut off by fault injection (tests)
   */
  public LeaseForwarding(Lessor lessor, LeaseKeeper keeper, Supplier<RaftStatus> status,
      java.util.function.LongFunction<ActorSelection> peers, Duration timeout, PeerFilter filter) {
    this.filter = filter;
    this.lessor = lessor;
    this.keeper = keeper;
    this.status = status;
    this.leaders = peers;
    this.timeout = timeout;
  }

  /** The selection of a member's endpoint at its Artery address. */
  public static ActorSelection endpoint(ActorSystem system, String address) {
    return system.actorSelection(address + "/user/" + ENDPOINT);
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
    ActorSelection leader = leaders.apply(s.leader());
    if (leader == null || filter.blocked(s.leader())) {
      return CompletableFuture.failedFuture(EtcdError.NO_LEADER.exception());
    }
    return Patterns.ask(leader, request, timeout).handle((reply, error) -> {
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
    keeper.promoteOnce(s.term(), lessor::ttls);
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
