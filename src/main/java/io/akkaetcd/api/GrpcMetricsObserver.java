package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.CallObserver;
import io.akkaetcd.api.pipeline.Transport;
import io.akkaetcd.errors.ErrorCode;
import io.akkaetcd.metrics.GrpcMethods;
import io.akkaetcd.metrics.GrpcServerMetrics;

/**
 * Feeds grpc_server_* from the pipeline, for gRPC calls only: etcd counts its gRPC server's calls
 * (go-grpc-prometheus interceptors), and the in-process client has no etcd counterpart. As
 * go-grpc-prometheus's unary interceptor: started and one message received as the call starts;
 * one message sent if it succeeds; handled with its code. A stream's messages are not counted.
 */
final class GrpcMetricsObserver implements CallObserver {
  private final GrpcServerMetrics metrics;

  GrpcMetricsObserver(GrpcServerMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public void started(Call call) {
    if (call.transport() != Transport.IN_PROCESS) {
      metrics.started(call.method());
      if (isUnary(call)) {
        metrics.received(call.method());
      }
    }
  }

  @Override
  public void finished(Call call, ErrorCode code, Throwable failure) {
    if (call.transport() != Transport.IN_PROCESS) {
      if (code == ErrorCode.OK && isUnary(call)) {
        metrics.sent(call.method());
      }
      metrics.handled(call.method(), code.value(), System.nanoTime() - call.startedNanos());
    }
  }

  private static boolean isUnary(Call call) {
    return GrpcMethods.UNARY.equals(GrpcMethods.type(call.method()));
  }
}
