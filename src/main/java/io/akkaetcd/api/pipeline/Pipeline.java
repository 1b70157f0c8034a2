package io.akkaetcd.api.pipeline;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.errors.ErrorCode;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.EtcdFailures;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The one way into a member's services, for every transport (gRPC, the in-process client; the
 * JSON gateway next). The transport decodes a request and makes its {@link Call}; then the
 * pipeline waits until the member is ready (etcd serves nothing before), passes the call through
 * its stages in order (learner refusal, require-leader, authenticate, authorize) and hands it to
 * the service (validate, propose or read); the transport encodes the result or maps the failure.
 * The {@link CallObserver} sees each whole call. A refusing stage ends the call before the
 * service sees it, with etcd's error.
 *
 * <p>The hot path adds no thread hop and, beyond the transport's {@code Call}, no allocation: a
 * ready member runs the stages and the service on the caller's thread, and {@link CallObserver#NONE}
 * adds no completion stage. Built once per member; thread-safe.
 */
public final class Pipeline {
  private final MemberGate member;
  private final Stage[] stages;
  private final CallObserver observer;
  private final Authenticator authenticator;
  private final Authorizer authorizer;

  public Pipeline(MemberGate member, List<Stage> stages, CallObserver observer) {
    this(member, stages, observer, Authenticator.ALLOW_ALL, Authorizer.ALLOW_ALL);
  }

  /** With {@code authorizer} also asked about each request of the streams it {@linkplain Authorizer#checksEachRequest checks}. */
  private Pipeline(MemberGate member, List<Stage> stages, CallObserver observer, Authenticator authenticator,
      Authorizer authorizer) {
    this.member = member;
    this.stages = stages.toArray(Stage[]::new);
    this.observer = observer;
    this.authenticator = authenticator;
    this.authorizer = authorizer;
  }

  /** etcd's order: its interceptor's learner and leader checks, then auth's. */
  public static Pipeline standard(MemberGate member, Plugins plugins) {
    return new Pipeline(member, List.of(Stages.learnerRefusal(member), Stages.requireLeader(member),
        Stages.authenticate(plugins.authenticator()), Stages.authorize(plugins.authorizer())), plugins.observer(),
        plugins.authenticator(), plugins.authorizer());
  }

  /** A unary call: its result, or its failure (a stage's refusal, or the service's). */
  public <Q, R> CompletionStage<R> unary(Call call, Q request, Function<Q, CompletionStage<R>> service) {
    observer.started(call);
    CompletableFuture<Void> ready = member.ready().toCompletableFuture();
    CompletionStage<R> result = isReady(ready) ? admit(call, request, service)
        : ready.thenCompose(v -> admit(call, request, service));
    if (observer != CallObserver.NONE) {
      result.whenComplete((r, e) -> observer.finished(call, code(e), e));
    }
    return result;
  }

  /**
   * A unary call a service makes while serving {@code outer} (a recipe's txn: etcd's v3lock calls
   * its in-process client with the caller's context). {@code outer} has passed the readiness wait
   * and is observed already, so this one only runs the stages, as an in-process call of
   * {@code method} acting as {@code outer}'s user; it is not observed on its own (etcd's in-process
   * client bypasses the gRPC interceptors and their metrics).
   */
  public <Q, R> CompletionStage<R> nested(Call outer, String method, Q request, Function<Q, CompletionStage<R>> service) {
    return admit(Call.inProcess(method, outer.user()), request, service);
  }

  /**
   * A stream (Watch, LeaseKeepAlive; a server stream gets its one request as {@code requests}):
   * checked once as it opens; a refusal fails it before the service sees its requests. Each
   * request is also authorized where the authorizer asks for it; a refusal then fails the stream.
   */
  public <Q, R> Source<R, NotUsed> stream(Call call, Source<Q, NotUsed> requests,
      Function<Source<Q, NotUsed>, Source<R, NotUsed>> service) {
    observer.started(call);
    CompletableFuture<Void> ready = member.ready().toCompletableFuture();
    Source<R, NotUsed> out = isReady(ready) ? admitStream(call, requests, service)
        : Source.completionStageSource(ready.thenApply(v -> admitStream(call, requests, service)))
            .mapMaterializedValue(m -> NotUsed.getInstance());
    if (observer == CallObserver.NONE) {
      return out;
    }
    return out.watchTermination((m, done) -> {
      done.whenComplete((d, e) -> observer.finished(call, code(e), e));
      return m;
    });
  }

  /** The code a call ended with: OK, its etcd error's, or UNKNOWN for anything else (as grpc-go). */
  public static ErrorCode code(Throwable failure) {
    if (failure == null) {
      return ErrorCode.OK;
    }
    return EtcdFailures.cause(failure) instanceof EtcdException e ? e.error().code() : ErrorCode.UNKNOWN;
  }

  private static boolean isReady(CompletableFuture<Void> ready) {
    return ready.isDone() && !ready.isCompletedExceptionally();
  }

  private <Q, R> CompletionStage<R> admit(Call call, Q request, Function<Q, CompletionStage<R>> service) {
    try {
      check(call, request);
      return CurrentCall.during(call, () -> service.apply(request));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private <Q, R> Source<R, NotUsed> admitStream(Call call, Source<Q, NotUsed> requests,
      Function<Source<Q, NotUsed>, Source<R, NotUsed>> service) {
    try {
      check(call, null);
      Source<Q, NotUsed> checked = authorizer.checksEachRequest(call.method()) ? requests.map(q -> {
        // the token again: the caller's auth revision moves on while the stream stays open
        call.authenticated(authenticator.authenticate(call));
        authorizer.authorize(call, q);
        return q;
      }) : requests;
      return CurrentCall.during(call, () -> service.apply(checked));
    } catch (RuntimeException e) {
      return Source.failed(e);
    }
  }

  private void check(Call call, Object request) {
    for (Stage stage : stages) {
      stage.check(call, request);
    }
  }
}
