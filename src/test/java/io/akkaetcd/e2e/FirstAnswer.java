package io.akkaetcd.e2e;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** The first answer of a gRPC bidi stream to one request, for tests that look at how a stream opens. */
final class FirstAnswer {
  private FirstAnswer() {}

  /**
   * Opens a stream with {@code open}, sends {@code request}, and returns the first answer within
   * 10 s; the stream's error, or its end before an answer, fails the returned get. The client's
   * half-close ends the stream afterwards.
   */
  static <Q, R> R of(Function<StreamObserver<R>, StreamObserver<Q>> open, Q request) throws Exception {
    CompletableFuture<R> first = new CompletableFuture<>();
    StreamObserver<Q> requests = open.apply(new StreamObserver<>() {
      @Override
      public void onNext(R r) {
        first.complete(r);
      }

      @Override
      public void onError(Throwable t) {
        first.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        first.completeExceptionally(new IllegalStateException("the stream ended before an answer"));
      }
    });
    requests.onNext(request);
    try {
      return first.get(10, TimeUnit.SECONDS);
    } finally {
      requests.onCompleted();
    }
  }
}
