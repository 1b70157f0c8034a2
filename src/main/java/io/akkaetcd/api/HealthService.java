package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.proto.health.Health;
import io.akkaetcd.proto.health.HealthCheckRequest;
import io.akkaetcd.proto.health.HealthCheckResponse;
import io.akkaetcd.proto.health.HealthCheckResponse.ServingStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** grpc.health.v1.Health: SERVING while this member knows a leader, as etcd reports it. */
public final class HealthService implements Health {
  private final EtcdMember member;

  public HealthService(EtcdMember member) {
    this.member = member;
  }

  @Override
  public CompletionStage<HealthCheckResponse> check(HealthCheckRequest in) {
    return CompletableFuture.completedFuture(current());
  }

  @Override
  public Source<HealthCheckResponse, NotUsed> watch(HealthCheckRequest in) {
    return Source.single(current());
  }

  private HealthCheckResponse current() {
    ServingStatus s = member.raftStatus().leader() != 0 ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    return HealthCheckResponse.newBuilder().setStatus(s).build();
  }
}
