package io.akkaetcd.server;

import akka.actor.typed.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.settings.ServerSettings;
import akka.stream.Materializer;
import io.akkaetcd.api.ClientRouter;
import io.akkaetcd.api.ClientServices;
import io.akkaetcd.api.CorsOrigins;
import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.api.GrpcServices;
import io.akkaetcd.errors.StartupException;
import io.akkaetcd.gateway.JsonGateway;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A member's client listeners: etcd's gRPC services (KV, Watch, Lease, Cluster, Maintenance,
 * Health) served over HTTP/2 by Akka HTTP on each --listen-client-urls (cleartext, or TLS for
 * {@code https://}: {@link ClientTls}), and etcd's JSON gateway ({@link JsonGateway}) on the same
 * URLs, all routed through one {@link ClientRouter}. They are bound as soon as the member's
 * ActorSystem exists ({@link #bindEarly}), beside the rest of its start, as etcd listens before it
 * serves: a request that comes before {@link Early#serve} waits for the services.
 */
final class ClientListeners {
  private ClientListeners() {}

  /**
   * Starts binding every --listen-client-urls and --listen-metrics-urls (with {@code tls} for
   * {@code https://} ones) on a thread of its own, with {@code settings} (not the system's: it
   * may be a host application's).
   */
  static Early bindEarly(ServerConfig config, ClientTls tls, ActorSystem<?> system, Supplier<ServerSettings> settings) {
    Early early = new Early();
    DaemonThread.supply("akka-etcd-client-bind", () -> {
      ServerSettings s = settings.get();
      List<CompletableFuture<ServerBinding>> binds = new ArrayList<>();
      for (URI url : config.listenClientUrls()) {
        binds.add(bind(url, deferred(early.client), tls, system, s));
      }
      for (URI url : config.metrics().listenUrls()) {
        binds.add(bind(url, deferred(early.metrics), tls, system, s));
      }
      return binds;
    }).thenCompose(ClientListeners::allBound).whenComplete((bound, e) -> {
      if (e == null) {
        early.bound.complete(bound);
      } else {
        early.bound.completeExceptionally(e);
      }
    });
    return early;
  }

  /** Every binding, or the first URL's failure in the flags' order (the others then unbound). */
  private static CompletableFuture<List<ServerBinding>> allBound(List<CompletableFuture<ServerBinding>> binds) {
    return CompletableFuture.allOf(binds.toArray(CompletableFuture[]::new)).handle((d, e) -> e)
        .thenCompose(failure -> {
          List<ServerBinding> bound = binds.stream().filter(b -> !b.isCompletedExceptionally())
              .map(CompletableFuture::join).toList();
          if (failure == null) {
            return CompletableFuture.completedFuture(bound);
          }
          bound.forEach(ServerBinding::unbind);
          // the first URL that failed, as when they were bound one by one
          return binds.stream().filter(CompletableFuture::isCompletedExceptionally).findFirst().orElseThrow()
              .thenApply(b -> bound);
        });
  }

  /**
   * Listeners bound (or being bound) before the member's services exist. Confined to the
   * bootstrap: exactly one of {@link #serve} and {@link #abandon} is called.
   */
  static final class Early {
    private final CompletableFuture<Handler> client = new CompletableFuture<>();
    private final CompletableFuture<Handler> metrics = new CompletableFuture<>();
    private final CompletableFuture<List<ServerBinding>> bound = new CompletableFuture<>();

    private Early() {}

    /**
     * Serves the gRPC services of {@code shared} on the listeners; returns them once bound (the
     * member's {@link MemberHome} unbinds them). Throws etcd's start-up error for an address taken.
     */
    List<ServerBinding> serve(ServerConfig config, EtcdMember member, ClientServices shared, ActorSystem<?> system) {
      var grpc = GrpcServices.handlers(shared, config.maxRequestBytes(), system);
      Materializer mat = Materializer.matFromSystem(system);
      boolean certAuth = config.clientTls().clientCertAuth();
      JsonGateway gateway = new JsonGateway(GrpcServices.pipelineMethods(grpc), config.maxRequestBytes(),
          shared.metrics(), () -> certAuth && shared.auth().enabled(), mat);
      client.complete(new ClientRouter(grpc, member, shared.metrics(),
          config.grpcGateway() ? new ClientRouter.Mount(JsonGateway::serves, gateway) : null,
          CorsOrigins.parse(config.cors()), mat)::apply);
      // etcd's --listen-metrics-urls: /metrics and /health only (etcdhttp.HandleMetricsHealth).
      ClientRouter metricsOnly = new ClientRouter(java.util.Map.of(), member, shared.metrics(), mat);
      metrics.complete(req -> METRICS_PATHS.contains(req.getUri().path()) ? metricsOnly.apply(req)
          : CompletableFuture.completedFuture(notFound(req, mat)));
      return awaitBound();
    }

    /** The listeners once bound; etcd's start-up error for the first address taken. */
    List<ServerBinding> awaitBound() {
      try {
        return bound.orTimeout(30, TimeUnit.SECONDS).join();
      } catch (CompletionException e) {
        Throwable cause = e;
        while (cause instanceof CompletionException && cause.getCause() != null) {
          cause = cause.getCause();
        }
        if (cause instanceof StartupException s) {
          throw s;
        }
        throw e;
      }
    }

    /** How many requests wait for the services now. */
    int waiting() {
      return client.getNumberOfDependents() + metrics.getNumberOfDependents();
    }

    /** The member did not start: requests waiting fail, and the listeners unbind. */
    void abandon() {
      IllegalStateException stopped = new IllegalStateException("the member stopped as it started");
      client.completeExceptionally(stopped);
      metrics.completeExceptionally(stopped);
      bound.thenAccept(bs -> bs.forEach(ServerBinding::unbind));
    }
  }

  /** What serves a listener's requests. */
  private interface Handler {
    CompletionStage<HttpResponse> apply(HttpRequest req) throws Exception;
  }

  /** Hands each request to {@code target}, once there is one. */
  private static akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> deferred(
      CompletableFuture<Handler> target) {
    return req -> {
      if (target.isDone() && !target.isCompletedExceptionally()) {
        return target.join().apply(req);
      }
      return target.thenCompose(h -> {
        try {
          return h.apply(req);
        } catch (Exception e) {
          return CompletableFuture.failedFuture(e);
        }
      });
    };
  }

  private static final java.util.Set<String> METRICS_PATHS = java.util.Set.of("/metrics", "/health");

  /** Binds {@code url}; fails with etcd's start-up error when its address is taken. */
  private static CompletableFuture<ServerBinding> bind(URI url,
      akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> handler, ClientTls tls,
      ActorSystem<?> system, ServerSettings settings) {
    CompletableFuture<ServerBinding> binding;
    try {
      binding = tls.serve(Http.get(system).newServerAt(url.getHost(), url.getPort()).withSettings(settings), url)
          .bind(handler).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    // Taken since ListenUrls.check found it free: say so in one line, as etcd would have.
    return binding.exceptionallyCompose(e -> CompletableFuture.failedFuture(
        ListenUrls.bindFailed(new InetSocketAddress(url.getHost(), url.getPort()), e)));
  }

  /** Go's http.NotFound. */
  private static HttpResponse notFound(HttpRequest req, Materializer mat) {
    req.discardEntityBytes(mat);
    return HttpResponse.create().withStatus(StatusCodes.NOT_FOUND)
        .withEntity(HttpEntities.create(io.akkaetcd.api.GoContentTypes.TEXT_PLAIN, "404 page not found\n"));
  }
}
