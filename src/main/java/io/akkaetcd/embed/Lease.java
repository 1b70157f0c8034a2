package io.akkaetcd.embed;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.api.LeaseService;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseLeasesResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseRevokeResponse;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveResponse;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * etcd's Lease service in-process, through the same {@link LeaseService} as gRPC: grant and revoke
 * go through Raft, keep-alives renew the leader's deadline (a follower forwards them), time-to-live
 * reads after a linearizable barrier. Failures are {@link io.akkaetcd.errors.EtcdException}s.
 */
public final class Lease {
  private final Calls calls;
  private final LeaseService service;

  Lease(Calls calls, LeaseService service) {
    this.calls = calls;
    this.service = service;
  }

  public CompletionStage<LeaseGrantResponse> grant(LeaseGrantRequest request) {
    return calls.unary(Methods.LEASE_GRANT, request, service::leaseGrant);
  }

  /** Grants a lease of {@code ttlSeconds} with an id the member picks. */
  public CompletionStage<LeaseGrantResponse> grant(long ttlSeconds) {
    return grant(LeaseGrantRequest.newBuilder().setTTL(ttlSeconds).build());
  }

  /** Revokes a lease and deletes the keys attached to it. */
  public CompletionStage<LeaseRevokeResponse> revoke(long leaseId) {
    return calls.unary(Methods.LEASE_REVOKE, LeaseRevokeRequest.newBuilder().setID(leaseId).build(),
        service::leaseRevoke);
  }

  /** The lease's remaining and granted TTL (TTL -1 if there is no such lease), with its keys if asked. */
  public CompletionStage<LeaseTimeToLiveResponse> timeToLive(long leaseId, boolean keys) {
    return calls.unary(Methods.LEASE_TIME_TO_LIVE,
        LeaseTimeToLiveRequest.newBuilder().setID(leaseId).setKeys(keys).build(), service::leaseTimeToLive);
  }

  /** Every lease's id. */
  public CompletionStage<LeaseLeasesResponse> leases() {
    return calls.unary(Methods.LEASE_LEASES, LeaseLeasesRequest.getDefaultInstance(), service::leaseLeases);
  }

  /**
   * A keep-alive stream as the wire API's: one response per request, in order, with the TTL the
   * lease has again (0 once it is gone). The stream fails with an {@code EtcdException} if a
   * renewal cannot be made (no leader, say).
   */
  public Source<LeaseKeepAliveResponse, NotUsed> keepAlive(Source<LeaseKeepAliveRequest, NotUsed> requests) {
    return calls.stream(Methods.LEASE_KEEP_ALIVE, requests, service::leaseKeepAlive);
  }

  /** Keeps {@code leaseId} alive every {@code interval} (the first at once) until the stream is cancelled. */
  public Source<LeaseKeepAliveResponse, NotUsed> keepAlive(long leaseId, Duration interval) {
    LeaseKeepAliveRequest request = LeaseKeepAliveRequest.newBuilder().setID(leaseId).build();
    return keepAlive(Source.tick(Duration.ZERO, interval, request).mapMaterializedValue(c -> NotUsed.getInstance()));
  }
}
