package io.akkaetcd.embed;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Pipeline;
import io.akkaetcd.errors.EtcdFailures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The in-process transport: each call goes through the member's {@link Pipeline} (readiness,
 * learner refusal, auth) as a gRPC call does, named by etcd's method name, and fails with the bare
 * {@link io.akkaetcd.errors.EtcdException}. Results complete on {@code executor}, never on the
 * member's applier or Raft thread, so a caller's continuation cannot stall the member.
 */
final class Calls {
  private final Pipeline pipeline;
  private final Executor executor;
  /** Who the calls act as while auth is on (null: anonymous). */
  private final String user;

  Calls(Pipeline pipeline, Executor executor, String user) {
    this.pipeline = pipeline;
    this.executor = executor;
    this.user = user;
  }

  /** A unary call of {@code method} (e.g. {@link io.akkaetcd.api.pipeline.Methods#PUT}). */
  <Q, R> CompletionStage<R> unary(String method, Q request, Function<Q, CompletionStage<R>> service) {
    CompletableFuture<R> out = new CompletableFuture<>();
    pipeline.unary(Call.inProcess(method, user), request, service).whenCompleteAsync((r, e) -> {
      if (e == null) {
        out.complete(r);
      } else {
        out.completeExceptionally(EtcdFailures.cause(e));
      }
    }, executor);
    return out;
  }

  /** A stream of {@code method}: each materialization opens one stream through the pipeline. */
  <Q, R> Source<R, NotUsed> stream(String method, Source<Q, NotUsed> requests,
      Function<Source<Q, NotUsed>, Source<R, NotUsed>> service) {
    return Source.fromMaterializer((mat, attributes) -> pipeline.stream(Call.inProcess(method, user), requests, service))
        .mapMaterializedValue(f -> NotUsed.getInstance())
        .mapError(Throwable.class, EtcdFailures::cause);
  }
}
