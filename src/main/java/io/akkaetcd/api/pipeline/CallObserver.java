package io.akkaetcd.api.pipeline;

import io.akkaetcd.errors.ErrorCode;

/**
 * A hook around each whole call, for metrics (#29; etcd's grpc_server_started_total and
 * grpc_server_handled_total): told once when a unary call or a stream starts (before it waits
 * for readiness) and once when it ends, with etcd's code. Runs on whatever thread ends the
 * call, so it must be quick and must not throw.
 */
public interface CallObserver {
  /** Observes nothing; the pipeline then adds no completion stage to a call. */
  CallObserver NONE = new CallObserver() {
    @Override
    public void started(Call call) {}

    @Override
    public void finished(Call call, ErrorCode code, Throwable failure) {}
  };

  void started(Call call);

  /**
   * @param code {@link ErrorCode#OK}, the code of the etcd error the call failed with, or
   *     {@link ErrorCode#UNKNOWN} for any other failure
   * @param failure what the call failed with, null on success
   */
  void finished(Call call, ErrorCode code, Throwable failure);
}
