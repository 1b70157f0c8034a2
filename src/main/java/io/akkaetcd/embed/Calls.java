package io.akkaetcd.embed;

import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdFailures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * What every in-process call does around its service, as the gRPC transport does around it: wait
 * until the member serves clients, refuse on a learner what etcd's learners refuse, and fail with
 * the bare {@link io.akkaetcd.errors.EtcdException}. Results complete on {@code executor}, never
 * on the member's applier or Raft thread, so a caller's continuation cannot stall the member.
 */
final class Calls {
  /** Whether a learner serves a call (etcd's isRPCSupportedForLearner: serializable Range, Status). */
  enum OnLearner { SERVED, REFUSED }

  private final EtcdMember member;
  private final Executor executor;

  Calls(EtcdMember member, Executor executor) {
    this.member = member;
    this.executor = executor;
  }

  EtcdMember member() {
    return member;
  }

  <T> CompletionStage<T> call(OnLearner onLearner, Supplier<CompletionStage<T>> body) {
    CompletableFuture<T> out = new CompletableFuture<>();
    CompletableFuture<Void> ready = member.ready().toCompletableFuture();
    CompletionStage<T> result = ready.isDone() ? start(onLearner, body)
        : ready.thenCompose(v -> start(onLearner, body)); // etcd serves nothing before it is ready
    result.whenCompleteAsync((r, e) -> {
      if (e == null) {
        out.complete(r);
      } else {
        out.completeExceptionally(EtcdFailures.cause(e));
      }
    }, executor);
    return out;
  }

  private <T> CompletionStage<T> start(OnLearner onLearner, Supplier<CompletionStage<T>> body) {
    if (onLearner == OnLearner.REFUSED && member.isLearner()) {
      return CompletableFuture.failedFuture(EtcdError.NOT_SUPPORTED_FOR_LEARNER.exception());
    }
    return EtcdFailures.guarded(body);
  }
}
