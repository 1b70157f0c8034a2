package io.akkaetcd.gateway;

import akka.NotUsed;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpEntity;
import akka.http.javadsl.model.HttpMethods;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.headers.RawHeader;
import akka.japi.Pair;
import akka.japi.function.Function;
import akka.japi.pf.PFBuilder;
import akka.stream.Materializer;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.akkaetcd.api.GrpcCall;
import io.akkaetcd.api.PipelineMethod;
import io.akkaetcd.metrics.EtcdMetrics;
import io.akkaetcd.wait.ResponseBatch;
import io.grpc.Status;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * etcd's JSON gateway on a client URL ({@code /v3/...}, {@code /v3beta/...}): each path of
 * {@link GatewayPaths} calls the method the gRPC transport registered under that name
 * ({@link PipelineMethod}), so it runs through the member's one pipeline (readiness, learner,
 * leader and auth stages, metrics) and fails with the gRPC call's status. A unary call reads the
 * whole body as one JSON request and answers one JSON object; a stream reads successive JSON
 * objects from the body and answers a chunk {@code {"result":...}\n} per message, flushed, and a
 * failure as a last {@code {"error":{...}}} chunk. Thread-safe; one per member.
 */
public final class JsonGateway implements Function<HttpRequest, CompletionStage<HttpResponse>> {
  /**
   * Streams that outlive the request body: etcd's watch server ignores the client's half-close (its
   * recvLoop returns on EOF and the stream stays open until the client goes), while LeaseKeepAlive
   * ends after answering every request.
   */
  private static final Set<String> HELD_OPEN = Set.of("/etcdserverpb.Watch/Watch");
  /** etcd's accessController answer (embed/serve.go) to a CN certificate on the gateway. */
  static final String COMMON_NAME_IGNORED =
      "CommonName of client sending a request against gateway will be ignored and not used as expected\n";
  private static final long BODY_TIMEOUT_MILLIS = 60_000;
  private static final RawHeader GRPC_CONTENT_TYPE = RawHeader.create("Grpc-Metadata-Content-Type", "application/grpc");

  private final Map<String, PipelineMethod> methods;
  private final int maxBodyBytes;
  private final Materializer materializer;
  private final BooleanSupplier certificateUsers;
  /** The member's metrics, fed as etcd's gRPC server counts the gateway's calls; null: none. */
  private final EtcdMetrics metrics;

  /**
   * @param methods the member's methods by full gRPC name, as its gRPC transport registered them
   * @param maxRequestBytes etcd's --max-request-bytes: a request's JSON may take twice that and more
   *     (base64), so a body is refused only past twice it plus grpc-go's receive overhead
   */
  public JsonGateway(Map<String, PipelineMethod> methods, int maxRequestBytes, Materializer materializer) {
    this(methods, maxRequestBytes, null, materializer);
  }

  /**
   * As above, counting in {@code metrics} what the pipeline does not: etcd's gateway is a gRPC
   * client of its own server, so each message of a gateway stream counts in
   * grpc_server_msg_{received,sent}_total and every message's protobuf size in
   * etcd_network_client_grpc_{received,sent}_bytes_total (a unary call's messages are counted by
   * the pipeline's observer, as a gRPC call's).
   */
  public JsonGateway(Map<String, PipelineMethod> methods, int maxRequestBytes, EtcdMetrics metrics,
      Materializer materializer) {
    this(methods, maxRequestBytes, metrics, () -> false, materializer);
  }

  /**
   * As above; while {@code certificateUsers} holds ({@code --client-cert-auth} with auth on), a
   * request whose verified client certificate has a CN is refused, as etcd's access controller
   * does: the gateway's calls never act as the CN.
   */
  public JsonGateway(Map<String, PipelineMethod> methods, int maxRequestBytes, EtcdMetrics metrics,
      BooleanSupplier certificateUsers, Materializer materializer) {
    this.certificateUsers = certificateUsers;
    this.metrics = metrics;
    this.methods = Map.copyOf(methods);
    this.maxBodyBytes = (int) Math.min(Integer.MAX_VALUE, 2L * maxRequestBytes + (1 << 20));
    this.materializer = materializer;
  }

  /** Whether the gateway answers {@code path} (else the client URL's other routes do). */
  public static boolean serves(String path) {
    return GatewayPaths.mounted(path);
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest req) {
    String name = GatewayPaths.METHODS.get(GatewayPaths.canonical(req.getUri().path()));
    if (certificateUsers.getAsBoolean() && GrpcCall.certificateUser(req) != null) {
      return plain(req, 400, COMMON_NAME_IGNORED);
    }
    if (name == null) {
      return plain(req, 404, "Not Found\n");
    }
    if (!req.method().equals(HttpMethods.POST)) {
      return plain(req, 405, "Method Not Allowed\n");
    }
    PipelineMethod method = methods.get(name);
    if (method == null) {
      int slash = name.indexOf('/', 1);
      String service = name.substring(1, slash);
      String message = methods.keySet().stream().anyMatch(m -> m.startsWith("/" + service + "/"))
          ? "unknown method " + name.substring(slash + 1) + " for service " + service : "unknown service " + service;
      return req.discardEntityBytes(materializer).completionStage()
          .thenApply(done -> error(Status.UNIMPLEMENTED.withDescription(message)));
    }
    GatewayCall call = new GatewayCall(name, req);
    return switch (method.kind()) {
      case UNARY -> body(req).thenCompose(json -> unary(method, call, json));
      case SERVER_STREAM -> body(req).thenApply(json -> {
        try {
          Message request = JsonMapping.parse(json, method.newRequest());
          return streamed(counted(name, method.open(call, Source.single(received(name, request)))));
        } catch (InvalidProtocolBufferException | GoJsonDecoder.DecodeException | RuntimeException e) {
          return error(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
        }
      });
      // A held-open stream answers as its requests come; any other reads its whole body first, so that
      // its answer does not start before the request ends (Akka HTTP then closes an HTTP/1.1
      // connection instead of keeping it alive).
      case BIDI_STREAM -> HELD_OPEN.contains(name)
          ? bidi(method, call, req.entity().withoutSizeLimit().getDataBytes(), true)
          : body(req).thenCompose(json -> bidi(method, call, Source.single(ByteString.fromString(json)), false));
    };
  }

  private CompletionStage<HttpResponse> unary(PipelineMethod method, GatewayCall call, String json) {
    Message request;
    try {
      request = JsonMapping.parse(json, method.newRequest());
    } catch (InvalidProtocolBufferException | GoJsonDecoder.DecodeException | RuntimeException e) {
      return CompletableFuture.completedFuture(error(Status.INVALID_ARGUMENT.withDescription(e.getMessage())));
    }
    if (metrics != null) {
      metrics.clientGrpcReceivedBytes.inc(request.getSerializedSize());
    }
    CompletableFuture<HttpResponse> out = new CompletableFuture<>();
    method.callForAnswer(call, request).whenComplete((response, failure) -> {
      HttpResponse answer;
      try {
        answer = failure == null ? answered(response) : error(GatewayErrors.status(failure));
      } catch (RuntimeException | OutOfMemoryError e) { // answered (HTTP 500), never left hanging
        out.completeExceptionally(e);
        return;
      }
      ResponseBatch.complete(out, answer); // held back while the applier answers a batch, as gRPC's
    });
    return out;
  }

  /**
   * A unary answer's JSON: whole, or for a large answer chunked as its parts are read (Go's
   * net/http chunks a response larger than its buffer too). A failure after the first chunk
   * (a compaction that overtook the range) can only cut the response short.
   */
  private HttpResponse answered(PipelineMethod.Answer answer) {
    HttpResponse ok = HttpResponse.create().addHeader(GRPC_CONTENT_TYPE);
    if (answer.whole() != null) {
      return ok.withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, JsonMapping.print(sentBytes(answer.whole()))));
    }
    Source<ByteString, NotUsed> json = answer.parts().map(this::sentBytes)
        .statefulMap(JsonParts::new, (parts, m) -> Pair.create(parts, parts.next(m)), parts -> Optional.of(parts.end()));
    return ok.withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_JSON, json));
  }

  /**
   * A bidirectional stream, once its first request is read: as grpc-gateway's handler, a first
   * request that fails to decode fails the call (a plain error: code Unknown, HTTP 500) and a later
   * one ends the requests (it logs and stops reading). A body with no request closes the requests.
   */
  private <M> CompletionStage<HttpResponse> bidi(PipelineMethod method, GatewayCall call, Source<ByteString, M> body,
      boolean heldOpen) {
    String name = method.name();
    return StreamRequests.of(body, method::newRequest).prefixAndTail(1).runWith(Sink.head(), materializer)
        .thenApply(firstAndRest -> {
          java.util.List<StreamRequests.Request> first = firstAndRest.first();
          if (!first.isEmpty() && first.get(0).error() != null) {
            return error(Status.UNKNOWN.withDescription(first.get(0).error()));
          }
          Source<Message, NotUsed> requests = Source.from(first).concat(firstAndRest.second())
              .takeWhile(r -> r.error() == null)
              .map(r -> received(name, r.message()));
          return streamed(counted(name, method.open(call, heldOpen ? requests.concat(Source.never()) : requests)));
        });
  }

  /** A stream's request, counted as etcd's gRPC server counts the message the gateway forwards. */
  private Message received(String name, Message request) {
    if (metrics != null) {
      metrics.clientGrpcReceivedBytes.inc(request.getSerializedSize());
      metrics.grpc().received(name);
    }
    return request;
  }

  /** A stream's responses, each counted as etcd's gRPC server counts it on its way to the gateway. */
  private Source<Message, NotUsed> counted(String name, Source<Message, NotUsed> responses) {
    return metrics == null ? responses : responses.map(m -> {
      metrics.grpc().sent(name);
      return sentBytes(m);
    });
  }

  private Message sentBytes(Message response) {
    if (metrics != null) {
      metrics.clientGrpcSentBytes.inc(response.getSerializedSize());
    }
    return response;
  }

  private static HttpResponse streamed(Source<Message, NotUsed> responses) {
    Source<ByteString, NotUsed> chunks = responses
        .map(m -> ByteString.fromString("{\"result\":" + JsonMapping.print(m) + "}\n"))
        .recover(new PFBuilder<Throwable, ByteString>()
            .matchAny(e -> ByteString.fromString(GatewayErrors.streamChunk(GatewayErrors.status(e)))).build());
    return HttpResponse.create().addHeader(GRPC_CONTENT_TYPE)
        .withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_JSON, chunks));
  }

  /**
   * The whole body. A body that arrived with its head is already strict: taken as it is, since
   * Akka HTTP's toStrict with a size limit materializes a stream even for a strict entity.
   */
  private CompletionStage<String> body(HttpRequest req) {
    if (req.entity() instanceof HttpEntity.Strict strict && strict.getData().size() <= maxBodyBytes) {
      return CompletableFuture.completedFuture(strict.getData().utf8String());
    }
    return req.entity().toStrict(BODY_TIMEOUT_MILLIS, maxBodyBytes, materializer)
        .thenApply(strict -> strict.getData().utf8String());
  }

  private static HttpResponse error(Status status) {
    return HttpResponse.create().withStatus(GatewayErrors.httpStatus(status.getCode()))
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, GatewayErrors.body(status)));
  }

  /** Go's http.Error, as grpc-gateway's mux answers a path or method it does not route. */
  private CompletionStage<HttpResponse> plain(HttpRequest req, int status, String text) {
    return req.discardEntityBytes(materializer).completionStage().thenApply(done -> HttpResponse.create()
        .withStatus(status).addHeader(RawHeader.create("X-Content-Type-Options", "nosniff"))
        .withEntity(HttpEntities.create(io.akkaetcd.api.GoContentTypes.TEXT_PLAIN, text)));
  }
}
