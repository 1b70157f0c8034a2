package io.akkaetcd.api;

import akka.NotUsed;
import akka.grpc.GrpcServiceException;
import akka.stream.javadsl.Source;
import io.akkaetcd.proto.health.Health;
import io.akkaetcd.proto.health.HealthCheckRequest;
import io.akkaetcd.proto.health.HealthCheckResponse;
import io.akkaetcd.proto.health.HealthCheckResponse.ServingStatus;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * grpc.health.v1.Health for the empty service name, the one etcd registers for all its services:
 * SERVING while this member knows a leader, NOT_SERVING otherwise, the leader check that
 * /health and /readyz fail first. Any other name is grpc-go's "unknown service" (NotFound for
 * Check, SERVICE_UNKNOWN for Watch). Watch sends the status at once and then each change.
 */
public final class HealthService implements Health {
  /** How often Watch looks at the member for a change. */
  private static final Duration WATCH_POLL = Duration.ofMillis(200);
  private final EtcdMember member;

  public HealthService(EtcdMember member) {
    this.member = member;
  }

  @Override
  public CompletionStage<HealthCheckResponse> check(HealthCheckRequest in) {
    if (!in.getService().isEmpty()) {
      return CompletableFuture.failedFuture(new GrpcServiceException(Status.NOT_FOUND.withDescription("unknown service")));
    }
    return CompletableFuture.completedFuture(response(current(in)));
  }

  @Override
  public Source<HealthCheckResponse, NotUsed> watch(HealthCheckRequest in) {
    return Source.tick(Duration.ZERO, WATCH_POLL, NotUsed.notUsed())
        .map(tick -> current(in))
        .statefulMapConcat(() -> {
          ServingStatus[] last = {null};
          return s -> {
            if (s == last[0]) {
              return List.<ServingStatus>of();
            }
            last[0] = s;
            return List.of(s);
          };
        })
        .map(HealthService::response)
        .mapMaterializedValue(c -> NotUsed.notUsed());
  }

  private ServingStatus current(HealthCheckRequest in) {
    if (!in.getService().isEmpty()) {
      return ServingStatus.SERVICE_UNKNOWN;
    }
    return member.hasLeader() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  }

  private static HealthCheckResponse response(ServingStatus s) {
    return HealthCheckResponse.newBuilder().setStatus(s).build();
  }
}
