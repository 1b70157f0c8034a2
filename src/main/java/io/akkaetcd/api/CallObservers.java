package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.CallObserver;
import io.akkaetcd.errors.ErrorCode;

/** Combinations of {@link CallObserver}s. */
final class CallObservers {
  private CallObservers() {}

  /** Tells {@code first}, then {@code second}, of each call. */
  static CallObserver both(CallObserver first, CallObserver second) {
    return new CallObserver() {
      @Override
      public void started(Call call) {
        first.started(call);
        second.started(call);
      }

      @Override
      public void finished(Call call, ErrorCode code, Throwable failure) {
        first.finished(call, code, failure);
        second.finished(call, code, failure);
      }
    };
  }
}
