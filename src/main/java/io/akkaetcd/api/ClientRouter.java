package io.akkaetcd.api;

import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.model.headers.RawHeader;
import akka.japi.function.Function;
import akka.stream.Materializer;
import io.akkaetcd.api.health.HealthAnswer;
import io.akkaetcd.api.health.HealthChecks;
import io.akkaetcd.metrics.EtcdMetrics;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Everything served on a client URL. gRPC requests go to their service by the first path segment
 * ({@code /etcdserverpb.KV/Range}); an unknown service or method answers gRPC UNIMPLEMENTED as
 * grpc-go does, never a bare HTTP 404. A known method's call goes through the member's
 * {@link io.akkaetcd.api.pipeline.Pipeline} (readiness, learner, leader and auth stages). Plain
 * HTTP gets etcd's {@code /health} ({@code /livez}, {@code /readyz}: {@link HealthChecks}),
 * {@code /version} and {@code /metrics} once the member is {@linkplain EtcdMember#ready ready}.
 */
public final class ClientRouter implements Function<HttpRequest, CompletionStage<HttpResponse>> {
  private final Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services;
  private final EtcdMember member;
  private final Materializer materializer;
  /** The member's metrics for GET /metrics; null serves no /metrics. */
  private final EtcdMetrics metrics;
  /** Plain HTTP paths served by another transport (the JSON gateway); null: none. */
  private final Mount mount;
  private final HealthChecks health;
  private final CorsOrigins cors;

  /** A transport mounted on the client URL: it answers every plain HTTP request whose path it takes. */
  public record Mount(java.util.function.Predicate<String> paths, Function<HttpRequest, CompletionStage<HttpResponse>> handler) {}

  /** @param services handlers by full gRPC service name (e.g. {@code etcdserverpb.KV}) */
  public ClientRouter(Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services,
      EtcdMember member, Materializer materializer) {
    this(services, member, null, materializer);
  }

  /** As above, also serving {@code metrics} on {@code /metrics} as etcd does. */
  public ClientRouter(Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services,
      EtcdMember member, EtcdMetrics metrics, Materializer materializer) {
    this(services, member, metrics, null, materializer);
  }

  /** As above, also handing the paths of {@code mount} to it. */
  public ClientRouter(Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services,
      EtcdMember member, EtcdMetrics metrics, Mount mount, Materializer materializer) {
    this(services, member, metrics, mount, CorsOrigins.ANY, materializer);
  }

  /** As above, with the CORS headers of {@code cors} (etcd's --cors) on plain HTTP answers. */
  public ClientRouter(Map<String, Function<HttpRequest, CompletionStage<HttpResponse>>> services,
      EtcdMember member, EtcdMetrics metrics, Mount mount, CorsOrigins cors, Materializer materializer) {
    this.cors = cors;
    this.mount = mount;
    this.services = Map.copyOf(services);
    this.member = member;
    this.metrics = metrics;
    this.materializer = materializer;
    this.health = new HealthChecks(new MemberHealth(member));
  }

  /** Set once the first request was answered (see {@link EtcdMember#firstRequestAnswered}). */
  private volatile boolean answered;

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest req) throws Exception {
    CompletionStage<HttpResponse> resp = isGrpc(req) ? grpc(req) : http(req);
    if (!answered && member.ready().toCompletableFuture().isDone()) {
      resp.thenRun(() -> {
        if (!answered) {
          answered = true;
          member.firstRequestAnswered();
        }
      });
    }
    return resp;
  }

  private CompletionStage<HttpResponse> grpc(HttpRequest req) throws Exception {
    String path = req.getUri().path();
    int slash = path.indexOf('/', 1);
    String service = slash > 0 ? path.substring(1, slash) : path.substring(1);
    Function<HttpRequest, CompletionStage<HttpResponse>> handler = services.get(service);
    if (handler == null) {
      return CompletableFuture.completedFuture(unimplemented("unknown service " + service));
    }
    Optional<HttpResponse> refused = GrpcNegotiation.refusal(req);
    if (refused.isPresent()) {
      req.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(refused.get());
    }
    return handler.apply(req).thenApplyAsync(resp -> resp.status().equals(StatusCodes.NOT_FOUND)
        ? unimplemented("unknown method " + path.substring(slash + 1) + " for service " + service)
        : resp, GrpcServiceHandler.SAME_THREAD);
  }

  /**
   * etcd serves nothing before it is ready; a request waits for it. Answer only once the request's
   * body is read: an HTTP/1.1 answer sent before it (Patroni sends "{}" with GET /version) makes
   * Akka HTTP close the connection instead of keeping it alive.
   */
  private CompletionStage<HttpResponse> http(HttpRequest req) throws Exception {
    List<HttpHeader> corsHeaders = cors.headers(req);
    if (req.method().equals(akka.http.javadsl.model.HttpMethods.OPTIONS)) {
      // etcd's accessController: a CORS preflight is answered 200 on any path
      return req.discardEntityBytes(materializer).completionStage()
          .thenApply(done -> HttpResponse.create().addHeaders(corsHeaders));
    }
    if (mount != null && mount.paths().test(req.getUri().path())) {
      return mount.handler().apply(req).thenApply(resp -> resp.addHeaders(corsHeaders));
    }
    CompletionStage<akka.Done> read = member.ready()
        .thenCompose(ready -> req.discardEntityBytes(materializer).completionStage());
    String path = req.getUri().path();
    if (health.serves(path)) {
      return read.thenCompose(done -> health.answer(req.method().value(), path, req.getUri().query().toMultiMap()))
          .thenApply(answer -> health(answer).addHeaders(corsHeaders));
    }
    return read.thenApply(done -> http(path, req).addHeaders(corsHeaders));
  }

  private HttpResponse http(String path, HttpRequest req) {
    return switch (path) {
      case "/metrics" -> metrics == null ? notFound() : metrics();
      // etcd's serveVersion takes GET only (allowMethod)
      case "/version" -> !req.method().equals(akka.http.javadsl.model.HttpMethods.GET)
          ? health(HealthAnswer.methodNotAllowed())
          : HttpResponse.create().withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON,
              "{\"etcdserver\":\"" + member.serverVersion() + "\",\"etcdcluster\":\"" + member.clusterVersion() + "\"}"));
      default -> notFound();
    };
  }

  /** Go's http.NotFound, with the header http.Error adds. */
  private static HttpResponse notFound() {
    return HttpResponse.create().withStatus(StatusCodes.NOT_FOUND)
        .addHeader(RawHeader.create("X-Content-Type-Options", "nosniff"))
        .withEntity(HttpEntities.create(GoContentTypes.TEXT_PLAIN, "404 page not found\n"));
  }

  /** etcd's /metrics (promhttp): every method, text format 0.0.4. */
  private HttpResponse metrics() {
    return HttpResponse.create().withEntity(HttpEntities.create(METRICS_TYPE, metrics.scrape()));
  }

  private static HttpResponse health(HealthAnswer answer) {
    List<HttpHeader> headers = answer.headers().entrySet().stream()
        .map(h -> (HttpHeader) RawHeader.create(h.getKey(), h.getValue())).toList();
    return HttpResponse.create().withStatus(answer.status()).addHeaders(headers)
        .withEntity(HttpEntities.create(GoContentTypes.TEXT_PLAIN, answer.body()));
  }

  private static final akka.http.javadsl.model.ContentType METRICS_TYPE = GoContentTypes.exactly(EtcdMetrics.CONTENT_TYPE);

  private static boolean isGrpc(HttpRequest req) {
    return req.entity().getContentType().mediaType().toString().startsWith("application/grpc");
  }

  /** A trailers-only gRPC response: HTTP 200 with grpc-status 12 in the headers. */
  static HttpResponse unimplemented(String message) {
    return trailersOnly(Status.Code.UNIMPLEMENTED, message);
  }

  /** A trailers-only gRPC response: HTTP 200 with the status in the headers. */
  private static HttpResponse trailersOnly(Status.Code code, String message) {
    List<HttpHeader> headers = List.of(
        RawHeader.create("grpc-status", Integer.toString(code.value())),
        RawHeader.create("grpc-message", message));
    return HttpResponse.create()
        .withStatus(StatusCodes.OK)
        .addHeaders(headers)
        .withEntity(HttpEntities.create(
            ContentTypes.parse("application/grpc+proto"), new byte[0]));
  }
}
