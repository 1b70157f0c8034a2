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
import io.akkaetcd.gateway.JsonGateway;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A member's client listeners: etcd's gRPC services (KV, Watch, Lease, Cluster, Maintenance,
 * Health) served over HTTP/2 by Akka HTTP on each --listen-client-urls (cleartext, or TLS for
 * {@code https://}: {@link ClientTls}), and etcd's JSON gateway ({@link JsonGateway}) on the same
 * URLs, all routed through one {@link ClientRouter}.
 */
final class ClientListeners {
  private ClientListeners() {}

  /**
   * Binds every --listen-client-urls (with {@code tls} for {@code https://} ones) to the gRPC
   * services of {@code shared}, with {@code settings} (not the system's: it may be a host
   * application's); the member's {@link MemberHome} unbinds them. Throws etcd's start-up error for
   * an address taken.
   */
  static List<ServerBinding> bind(ServerConfig config, ClientTls tls, EtcdMember member, ClientServices shared,
      ActorSystem<?> system, ServerSettings settings) {
    var grpc = GrpcServices.handlers(shared, config.maxRequestBytes(), system);
    Materializer mat = Materializer.matFromSystem(system);
    boolean certAuth = config.clientTls().clientCertAuth();
    JsonGateway gateway = new JsonGateway(GrpcServices.pipelineMethods(grpc), config.maxRequestBytes(),
        shared.metrics(), () -> certAuth && shared.auth().enabled(), mat);
    ClientRouter router = new ClientRouter(grpc, member, shared.metrics(),
        config.grpcGateway() ? new ClientRouter.Mount(JsonGateway::serves, gateway) : null,
        CorsOrigins.parse(config.cors()), mat);
    List<ServerBinding> bindings = new ArrayList<>();
    for (URI url : config.listenClientUrls()) {
      bindings.add(bind(url, router, tls, system, settings));
    }
    // etcd's --listen-metrics-urls: /metrics and /health only (etcdhttp.HandleMetricsHealth).
    ClientRouter metricsOnly = new ClientRouter(java.util.Map.of(), member, shared.metrics(), mat);
    for (URI url : config.metrics().listenUrls()) {
      bindings.add(bind(url, req -> METRICS_PATHS.contains(req.getUri().path()) ? metricsOnly.apply(req)
          : java.util.concurrent.CompletableFuture.completedFuture(notFound(req, mat)), tls, system, settings));
    }
    return List.copyOf(bindings);
  }

  private static final java.util.Set<String> METRICS_PATHS = java.util.Set.of("/metrics", "/health");

  private static ServerBinding bind(URI url, akka.japi.function.Function<HttpRequest, CompletionStage<HttpResponse>> handler,
      ClientTls tls, ActorSystem<?> system, ServerSettings settings) {
    try {
      return tls.serve(Http.get(system).newServerAt(url.getHost(), url.getPort()).withSettings(settings), url)
          .bind(handler)
          .toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
    } catch (java.util.concurrent.CompletionException e) {
      // Taken since ListenUrls.check found it free: say so in one line, as etcd would have.
      throw ListenUrls.bindFailed(new InetSocketAddress(url.getHost(), url.getPort()), e);
    }
  }

  /** Go's http.NotFound. */
  private static HttpResponse notFound(HttpRequest req, Materializer mat) {
    req.discardEntityBytes(mat);
    return HttpResponse.create().withStatus(StatusCodes.NOT_FOUND)
        .withEntity(HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8, "404 page not found\n"));
  }
}
