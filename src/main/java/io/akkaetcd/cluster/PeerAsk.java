package io.akkaetcd.cluster;

import akka.actor.ActorSystem;
import akka.pattern.Patterns;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.raft.peer.PeerGate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongFunction;

/**
 * Asks an actor at a well-known path on another member, over the peer transport (Artery): how a
 * member that does not lead hands the leader what only the leader decides, as etcd forwards
 * LeaseRenew and MemberPromote over its peer API.
 *
 * <p>A member that is 0 (no leader), unknown to the membership, or cut off by fault injection is
 * not asked: the request fails at once with "etcdserver: no leader" (Unavailable), which clients
 * retry. A reply that does not come within the timeout fails the stage with Akka's
 * {@code AskTimeoutException}; each caller maps that to its own etcd error.
 */
public final class PeerAsk {
  private final ActorSystem system;
  private final LongFunction<String> addressOf;
  private final PeerGate gate;

  /**
   * @param addressOf a member's Artery address by id, null if unknown
   * @param gate peers cut off by fault injection (tests)
   */
  public PeerAsk(ActorSystem system, LongFunction<String> addressOf, PeerGate gate) {
    this.system = system;
    this.addressOf = addressOf;
    this.gate = gate;
  }

  /** Sends {@code request} to {@code path} (e.g. {@code /user/leases}) on {@code member}. */
  public CompletionStage<Object> ask(long member, String path, Object request, Duration timeout) {
    String address = member == 0 ? null : addressOf.apply(member);
    if (address == null || gate.blocked(member)) {
      return CompletableFuture.failedFuture(EtcdError.NO_LEADER.exception());
    }
    return Patterns.ask(system.actorSelection(address + path), request, timeout);
  }
}
