package io.akkaetcd.api;

import io.akkaetcd.wait.ResponseBatch;
import akka.actor.ActorSystem;
import akka.actor.ClassicActorSystemProvider;
import akka.grpc.GrpcProtocol;
import akka.grpc.ProtobufSerializer;
import akka.grpc.Trailers;
import akka.grpc.javadsl.GrpcExceptionHandler;
import akka.grpc.javadsl.GrpcMarshalling;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.StatusCodes;
import akka.japi.function.Function;
import akka.stream.Materializer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A handler for a service of unary methods that does what Akka gRPC's generated handler does
 * (negotiate the protocol, unmarshal, call, marshal, map failures to gRPC status: for the services'
 * transport-neutral failures this is the one place that is done) but runs each
 * step on the thread that finished the one before, with readers and writers built once
 * ({@link GrpcNegotiation}).
 *
 * <p>Why: the generated handler chains {@code thenCompose}/{@code thenApply} on stages made from
 * Scala futures, and Scala's stage runs every non-async step on the JDK common pool, so a request
 * changes threads twice more than it needs to. Here the unmarshalled request goes to the service on
 * the connection's thread, and the response is marshalled on the thread that completed it (the
 * applier or a reader), which is a few microseconds of work. Used for the unary methods of KV (the
 * hot path), Lease, Cluster and Maintenance; their streaming methods go to the generated handler.
 * (A method that does real work must hand it to an executor of its own, as Maintenance does: it
 * is called on the connection's thread.)
 */
public final class UnaryGrpcHandler implements Function<HttpRequest, CompletionStage<HttpResponse>> {
  /** Runs a continuation at once, on the completing thread. */
  public static final Executor SAME_THREAD = Runnable::run;

  private static final CompletionStage<HttpResponse> NOT_FOUND =
      CompletableFuture.completedFuture(HttpResponse.create().withStatus(StatusCodes.NOT_FOUND));
  private static final CompletionStage<HttpResponse> UNSUPPORTED_MEDIA_TYPE =
      CompletableFuture.completedFuture(HttpResponse.create().withStatus(StatusCodes.UNSUPPORTED_MEDIA_TYPE));

  private record Method<Q, R>(ProtobufSerializer<Parsed<Q>> in, ProtobufSerializer<R> out,
                              java.util.function.Function<Q, CompletionStage<R>> call) {}

  /**
   * A request message as parsed, or the reason it is malformed. The parse must not throw inside
   * the request entity's stream: a failed entity stream has Akka HTTP reset the HTTP/2 stream
   * (RST_STREAM CANCEL), and a client that reads the reset before the error's trailers reports
   * CANCELLED instead of the error. So the stream ends normally, and the error is answered after.
   */
  private record Parsed<Q>(Q request, Exception malformed) {}

  /** A request refused before any service saw it: its error goes to Akka gRPC's mapper as is. */
  private static final class Malformed extends RuntimeException {
    Malformed(Exception cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  /**
   * The gRPC transport's one mapping of a service's failure ({@link GrpcErrors#toGrpc}); a
   * malformed or oversized request keeps the status Akka gRPC gives it.
   */
  private static Throwable grpcStatus(Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause() : error;
    return cause instanceof Malformed malformed ? malformed.getCause() : GrpcErrors.toGrpc(cause);
  }

  /**
   * Parses a request, refusing one over {@code limit} bytes as grpc-go's receive limit does (a
   * gRPC transport rule, checked before the message is parsed).
   */
  private static <Q> ProtobufSerializer<Parsed<Q>> parsing(ProtobufSerializer<Q> in, int limit) {
    return new ProtobufSerializer<>() {
      @Override
      public akka.util.ByteString serialize(Parsed<Q> p) {
        return in.serialize(p.request());
      }

      @Override
      public Parsed<Q> deserialize(akka.util.ByteString bytes) {
        if (bytes.size() > limit) {
          return new Parsed<>(null, GrpcErrors.messageTooLarge(bytes.size(), limit));
        }
        try {
          return new Parsed<>(in.deserialize(bytes), null);
        } catch (Exception e) { // protobuf's parse error, thrown unchecked through Scala
          return new Parsed<>(null, e);
        }
      }
    };
  }

  private final Map<String, Method<?, ?>> methods;
  private final Function<HttpRequest, CompletionStage<HttpResponse>> otherwise;
  private final Materializer materializer;
  private final ClassicActorSystemProvider system;
  private final akka.japi.Function<ActorSystem, akka.japi.Function<Throwable, Trailers>> errors =
      GrpcExceptionHandler.defaultMapper();

  private UnaryGrpcHandler(Map<String, Method<?, ?>> methods, Function<HttpRequest, CompletionStage<HttpResponse>> otherwise,
      Materializer materializer, ClassicActorSystemProvider system) {
    this.methods = Map.copyOf(methods);
    this.otherwise = otherwise;
    this.materializer = materializer;
    this.system = system;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The service's methods by name, e.g. {@code Put}. */
  public static final class Builder {
    private final Map<String, Method<?, ?>> methods = new HashMap<>();
    private Function<HttpRequest, CompletionStage<HttpResponse>> otherwise = request -> NOT_FOUND;
    private int receiveLimit = Integer.MAX_VALUE;

    /**
     * grpc-go's receive limit for the methods added after this: a larger request message is
     * answered RESOURCE_EXHAUSTED without being parsed ({@link GrpcErrors#messageTooLarge}).
     */
    public Builder receiveLimit(int bytes) {
      this.receiveLimit = bytes;
      return this;
    }

    public <Q, R> Builder method(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
        java.util.function.Function<Q, CompletionStage<R>> call) {
      methods.put(name, new Method<>(parsing(in, receiveLimit), out, call));
      return this;
    }

    /**
     * Where the service's other methods go (its streaming ones, to Akka gRPC's generated handler);
     * without this they are unknown.
     */
    public Builder otherwise(Function<HttpRequest, CompletionStage<HttpResponse>> handler) {
      this.otherwise = handler;
      return this;
    }

    public UnaryGrpcHandler build(Materializer materializer, ClassicActorSystemProvider system) {
      return new UnaryGrpcHandler(methods, otherwise, materializer, system);
    }
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest request) throws Exception {
    String path = request.getUri().path();
    Method<?, ?> method = methods.get(path.substring(path.lastIndexOf('/') + 1));
    if (method == null) {
      return otherwise.apply(request); // NOT_FOUND by default: the router answers gRPC UNIMPLEMENTED
    }
    return GrpcNegotiation.negotiated(request, (reader, writer) -> handle(method, request, reader, writer))
        .orElse(UNSUPPORTED_MEDIA_TYPE);
  }

  private <Q, R> CompletionStage<HttpResponse> handle(Method<Q, R> m, HttpRequest request,
      GrpcProtocol.GrpcProtocolReader reader, GrpcProtocol.GrpcProtocolWriter writer) {
    CompletableFuture<HttpResponse> out = new CompletableFuture<>();
    GrpcMarshalling.unmarshal(request.entity(), m.in(), materializer, reader)
        .thenComposeAsync(p -> p.malformed() == null ? m.call().apply(p.request())
            : CompletableFuture.<R>failedFuture(new Malformed(p.malformed())), SAME_THREAD)
        .handleAsync((response, error) -> error == null
            ? GrpcMarshalling.marshal(response, m.out(), writer, system, errors)
            : GrpcExceptionHandler.standard(grpcStatus(error), errors, writer, system), SAME_THREAD)
        .whenComplete((marshalled, failure) -> {
          if (failure != null) {
            out.completeExceptionally(failure);
          } else {
            ResponseBatch.complete(out, marshalled); // held back while the applier answers a batch
          }
        });
    return out;
  }
}
