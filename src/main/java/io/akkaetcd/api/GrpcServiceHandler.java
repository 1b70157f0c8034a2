package io.akkaetcd.api;

import akka.NotUsed;
import akka.actor.ActorSystem;
import akka.actor.ClassicActorSystemProvider;
import akka.grpc.GrpcProtocol;
import akka.grpc.ProtobufSerializer;
import io.akkaetcd.metrics.EtcdMetrics;
import akka.grpc.Trailers;
import akka.grpc.javadsl.GrpcExceptionHandler;
import akka.grpc.javadsl.GrpcMarshalling;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.StatusCodes;
import akka.japi.function.Function;
import akka.stream.Materializer;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.api.pipeline.Pipeline;
import io.akkaetcd.concurrency.Attempt;
import io.akkaetcd.wait.ResponseBatch;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The gRPC transport of one service: negotiates the protocol, decodes the request (or the
 * request stream), hands it to the member's {@link Pipeline} as a {@link GrpcCall}, encodes the
 * result and maps failures to gRPC status ({@link GrpcErrors}: the one place that is done).
 * Does what Akka gRPC's generated handler does, but runs each step of a unary call on the thread
 * that finished the one before, with readers and writers built once ({@link GrpcNegotiation}).
 *
 * <p>Why: the generated handler chains {@code thenCompose}/{@code thenApply} on stages made from
 * Scala futures, and Scala's stage runs every non-async step on the JDK common pool, so a request
 * changes threads twice more than it needs to. Here the unmarshalled request goes through the
 * pipeline to the service on the connection's thread, and the response is marshalled on the
 * thread that completed it (the applier or a reader), which is a few microseconds of work. (A
 * method that does real work must hand it to an executor of its own, as Maintenance does: it is
 * called on the connection's thread.) Streams are rare and long: they are built as the generated
 * handler builds them, then their messages that wait for the connection are joined
 * ({@link CoalescedChunks}).
 */
public final class GrpcServiceHandler implements Function<HttpRequest, CompletionStage<HttpResponse>> {
  /** Runs a continuation at once, on the completing thread. */
  public static final Executor SAME_THREAD = Runnable::run;

  private static final CompletionStage<HttpResponse> NOT_FOUND =
      CompletableFuture.completedFuture(HttpResponse.create().withStatus(StatusCodes.NOT_FOUND));
  private static final CompletionStage<HttpResponse> UNSUPPORTED_MEDIA_TYPE =
      CompletableFuture.completedFuture(HttpResponse.create().withStatus(StatusCodes.UNSUPPORTED_MEDIA_TYPE));

  /** A method of the service, by its kind. */
  private sealed interface Method permits Unary, Waiting, Stream {}

  /** @param name etcd's full method name, built once */
  private record Unary<Q, R>(String name, ProtobufSerializer<Parsed<Q>> in, ProtobufSerializer<R> out,
                             java.util.function.Function<Q, CompletionStage<R>> call) implements Method {}

  /**
   * A unary method whose first step may leave a wait (Lock, Campaign): a {@link Attempt.Done} goes
   * out as a unary answer; a {@link Attempt.Waiting} one, which must learn that its client went
   * away, as a one-message response stream ({@link #answerStream}).
   */
  private record Waiting<Q, R>(String name, ProtobufSerializer<Parsed<Q>> in, ProtobufSerializer<R> out,
                               java.util.function.Function<Q, CompletionStage<Attempt<R>>> call) implements Method {}

  /** A bidirectional stream; a server stream is one whose requests are its one request. */
  private record Stream<Q, R>(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out, boolean serverStream,
                              java.util.function.Function<Source<Q, NotUsed>, Source<R, NotUsed>> call)
      implements Method {}

  /**
   * A request message as parsed, or the reason it is malformed. The parse must not throw inside
   * the request entity's stream: a failed entity stream has Akka HTTP reset the HTTP/2 stream
   * (RST_STREAM CANCEL), and a client that reads the reset before the error's trailers reports
   * CANCELLED instead of the error. So the stream ends normally, and the error is answered after.
   */
  private record Parsed<Q>(Q request, Exception malformed) {}

  /** A request refused before the pipeline saw it: its error goes to Akka gRPC's mapper as is. */
  private static final class Malformed extends RuntimeException {
    Malformed(Exception cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  /**
   * The gRPC transport's one mapping of a call's failure ({@link GrpcErrors#toGrpc}); a
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

  private final Map<String, Method> methods;
  private final Map<String, PipelineMethod> pipelineMethods;
  private final Pipeline pipeline;
  private final Materializer materializer;
  private final ClassicActorSystemProvider system;
  private final akka.japi.Function<ActorSystem, akka.japi.Function<Throwable, Trailers>> errors =
      GrpcExceptionHandler.defaultMapper();

  private GrpcServiceHandler(Map<String, Method> methods, Map<String, PipelineMethod> pipelineMethods,
      Pipeline pipeline, Materializer materializer, ClassicActorSystemProvider system) {
    this.methods = Map.copyOf(methods);
    this.pipelineMethods = Map.copyOf(pipelineMethods);
    this.pipeline = pipeline;
    this.materializer = materializer;
    this.system = system;
  }

  /** @param service the full gRPC service name, e.g. {@code etcdserverpb.KV} */
  public static Builder builder(String service) {
    return new Builder(service);
  }

  /** The service's methods by name, e.g. {@code Put}; any other method is unknown. */
  public static final class Builder {
    private final String service;
    private final Map<String, Method> methods = new HashMap<>();
    /** The same methods for other transports, made once the pipeline is known. */
    private final java.util.List<java.util.function.Function<Pipeline, PipelineMethod>> forPipeline =
        new java.util.ArrayList<>();
    private int receiveLimit = Integer.MAX_VALUE;
    private EtcdMetrics metrics;

    private Builder(String service) {
      this.service = service;
    }

    /**
     * grpc-go's receive limit for the unary methods added after this: a larger request message is
     * answered RESOURCE_EXHAUSTED without being parsed ({@link GrpcErrors#messageTooLarge}).
     */
    public Builder receiveLimit(int bytes) {
      this.receiveLimit = bytes;
      return this;
    }

    /** Counts the messages of the methods added after this in {@code metrics} ({@link CountingSerializer}). */
    public Builder counting(EtcdMetrics metrics) {
      this.metrics = metrics;
      return this;
    }

    public <Q, R> Builder method(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
        java.util.function.Function<Q, CompletionStage<R>> call) {
      String method = Methods.of(service, name);
      methods.put(name, new Unary<>(method, parsing(counted(in, null), receiveLimit), counted(out, null), call));
      forPipeline.add(pipeline -> PipelineMethod.unary(method, in, pipeline, call));
      return this;
    }

    /**
     * A unary method whose gRPC answer the service encodes itself ({@link EncodedMessage}, streamed
     * when large); other transports call {@code call} for the message.
     */
    public <Q, R> Builder encodedMethod(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
        java.util.function.Function<Q, CompletionStage<R>> call,
        java.util.function.Function<Q, CompletionStage<EncodedMessage>> encodedCall) {
      String method = Methods.of(service, name);
      methods.put(name, new Unary<>(method, parsing(counted(in, null), receiveLimit),
          counted(EncodedMessage.SERIALIZER, null), encodedCall));
      forPipeline.add(pipeline -> PipelineMethod.encoded(method, in, out, pipeline, call, encodedCall));
      return this;
    }

    /**
     * A unary method that may have to wait: its answer goes out unary when its first step has it;
     * only a wait costs a response stream, whose headers are sent at once, so Akka HTTP cancels
     * that stream's source on the client's reset (it silently drops a reset of a stream still
     * awaiting its response), which completes the wait's {@code canceled}.
     */
    public <Q, R> Builder waiting(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
        java.util.function.Function<Q, CompletionStage<Attempt<R>>> call) {
      String method = Methods.of(service, name);
      methods.put(name, new Waiting<>(method, parsing(counted(in, null), receiveLimit), counted(out, null), call));
      // Other transports (the JSON gateway, etcd's /v3/lock/lock and /v3/election/campaign) wait
      // within the call; they are not told that their caller went away.
      forPipeline.add(pipeline -> PipelineMethod.unary(method, in, pipeline,
          request -> call.apply(request).thenCompose(attempt -> attempt.answer(new CompletableFuture<>()))));
      return this;
    }

    private <T> ProtobufSerializer<T> counted(ProtobufSerializer<T> codec, String streamMethod) {
      return metrics == null ? codec : new CountingSerializer<>(codec, metrics, streamMethod);
    }

    /** A bidirectional stream (Watch, LeaseKeepAlive). */
    public <Q, R> Builder stream(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
        java.util.function.Function<Source<Q, NotUsed>, Source<R, NotUsed>> call) {
      String method = Methods.of(service, name);
      methods.put(name, new Stream<>(method, counted(in, method), counted(out, method), false, call));
      forPipeline.add(pipeline -> PipelineMethod.stream(method, false, in, pipeline, call));
      return this;
    }

    /** A server stream: one request, a stream of responses (Snapshot, Health's Watch). */
    public <Q, R> Builder serverStream(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
        java.util.function.Function<Q, Source<R, NotUsed>> call) {
      String method = Methods.of(service, name);
      java.util.function.Function<Source<Q, NotUsed>, Source<R, NotUsed>> one = firstRequest(call);
      methods.put(name, new Stream<Q, R>(method, counted(in, method), counted(out, method), true, one));
      forPipeline.add(pipeline -> PipelineMethod.stream(method, true, in, pipeline, one));
      return this;
    }

    /** A server stream as a stream of requests: the first request's answers. */
    private static <Q, R> java.util.function.Function<Source<Q, NotUsed>, Source<R, NotUsed>> firstRequest(
        java.util.function.Function<Q, Source<R, NotUsed>> call) {
      return requests -> requests.take(1).flatMapConcat(call::apply);
    }

    /**
     * A server stream whose gRPC messages the service encodes itself ({@link EncodedMessage}; the
     * snapshot's chunks, written once into the bytes that go out); other transports call {@code call}.
     */
    public <Q, R> Builder encodedServerStream(String name, ProtobufSerializer<Q> in,
        java.util.function.Function<Q, Source<R, NotUsed>> call,
        java.util.function.Function<Q, Source<EncodedMessage, NotUsed>> encodedCall) {
      String method = Methods.of(service, name);
      methods.put(name, new Stream<Q, EncodedMessage>(method, counted(in, method),
          counted(EncodedMessage.SERIALIZER, method), true, firstRequest(encodedCall)));
      forPipeline.add(pipeline -> PipelineMethod.stream(method, true, in, pipeline, firstRequest(call)));
      return this;
    }

    public GrpcServiceHandler build(Pipeline pipeline, Materializer materializer, ClassicActorSystemProvider system) {
      Map<String, PipelineMethod> direct = new HashMap<>();
      forPipeline.stream().map(f -> f.apply(pipeline)).filter(java.util.Objects::nonNull)
          .forEach(m -> direct.put(m.name(), m));
      return new GrpcServiceHandler(methods, direct, pipeline, materializer, system);
    }
  }

  /**
   * The service's methods by full name ({@code /etcdserverpb.KV/Range}) for a transport without
   * gRPC framing: the same services through the same pipeline.
   */
  public Map<String, PipelineMethod> pipelineMethods() {
    return pipelineMethods;
  }

  @Override
  public CompletionStage<HttpResponse> apply(HttpRequest request) throws Exception {
    String path = request.getUri().path();
    Method method = methods.get(path.substring(path.lastIndexOf('/') + 1));
    if (method == null) {
      return NOT_FOUND; // the router answers gRPC UNIMPLEMENTED
    }
    return GrpcNegotiation.negotiated(request, (reader, writer) -> method instanceof Unary<?, ?> unary
            ? unary(unary, request, reader, writer)
            : method instanceof Waiting<?, ?> waiting ? waiting(waiting, request, reader, writer)
            : stream((Stream<?, ?>) method, request, reader, writer))
        .orElse(UNSUPPORTED_MEDIA_TYPE);
  }

  private <Q, R> CompletionStage<HttpResponse> unary(Unary<Q, R> m, HttpRequest request,
      GrpcProtocol.GrpcProtocolReader reader, GrpcProtocol.GrpcProtocolWriter writer) {
    CompletableFuture<HttpResponse> out = new CompletableFuture<>();
    GrpcMarshalling.unmarshal(request.entity(), m.in(), materializer, reader)
        .thenComposeAsync(p -> p.malformed() == null ? pipeline.unary(new GrpcCall(m.name(), request), p.request(), m.call())
            : CompletableFuture.<R>failedFuture(new Malformed(p.malformed())), SAME_THREAD)
        .handleAsync((response, error) -> error != null
            ? GrpcExceptionHandler.standard(grpcStatus(error), errors, writer, system)
            : response instanceof EncodedMessage e && e.isStreamed() ? streamed(e, m.out(), writer)
            : GrpcMarshalling.marshal(response, m.out(), writer, system, errors), SAME_THREAD)
        .whenComplete((marshalled, failure) -> deliver(out, marshalled, failure));
    return out;
  }

  /** A large encoded answer, sent as it is read; gRPC-Web's text protocol gets it whole. */
  private <R> HttpResponse streamed(EncodedMessage e, ProtobufSerializer<R> out, GrpcProtocol.GrpcProtocolWriter writer) {
    if (out instanceof CountingSerializer<R> counting) {
      counting.sent(e.size());
    }
    if (GrpcStreamedAnswer.streams(writer)) {
      return GrpcStreamedAnswer.response(e, writer, system);
    }
    ByteString whole = e.parts().runFold(ByteString.emptyByteString(), ByteString::concat, materializer)
        .toCompletableFuture().join();
    return GrpcMarshalling.marshal(EncodedMessage.whole(whole), EncodedMessage.SERIALIZER, writer, system, errors);
  }

  private static void deliver(CompletableFuture<HttpResponse> out, HttpResponse marshalled, Throwable failure) {
    if (failure != null) {
      out.completeExceptionally(failure);
    } else {
      ResponseBatch.complete(out, marshalled); // held back while the applier answers a batch
    }
  }

  /**
   * The first step runs as a unary call. An answer it has goes out as a unary response; a wait
   * goes out as a response stream ({@link #answerStream}). A reset that came while the step ran is
   * not lost: Akka HTTP cancels a response stream dispatched to a closed stream, which completes
   * the wait's {@code canceled} stage as a later reset does.
   */
  private <Q, R> CompletionStage<HttpResponse> waiting(Waiting<Q, R> m, HttpRequest request,
      GrpcProtocol.GrpcProtocolReader reader, GrpcProtocol.GrpcProtocolWriter writer) {
    CompletableFuture<HttpResponse> out = new CompletableFuture<>();
    GrpcMarshalling.unmarshal(request.entity(), m.in(), materializer, reader)
        .thenComposeAsync(p -> p.malformed() == null ? pipeline.unary(new GrpcCall(m.name(), request), p.request(), m.call())
            : CompletableFuture.<Attempt<R>>failedFuture(new Malformed(p.malformed())), SAME_THREAD)
        .handleAsync((attempt, error) -> error != null
            ? GrpcExceptionHandler.standard(grpcStatus(error), errors, writer, system)
            : attempt instanceof Attempt.Done<R> done ? GrpcMarshalling.marshal(done.response(), m.out(), writer, system, errors)
            : answerStream(attempt::answer, m.out(), writer), SAME_THREAD)
        .whenComplete((marshalled, failure) -> deliver(out, marshalled, failure));
    return out;
  }

  /**
   * The answer of {@code call} as the one element of a response stream (a failure in the
   * trailers); a cancel of that stream before the answer completes {@code call}'s {@code canceled}.
   */
  private <R> HttpResponse answerStream(java.util.function.Function<CompletionStage<Void>, CompletionStage<R>> call,
      ProtobufSerializer<R> out, GrpcProtocol.GrpcProtocolWriter writer) {
    CompletableFuture<Void> canceled = new CompletableFuture<>();
    CompletableFuture<R> answer = call.apply(canceled).toCompletableFuture();
    Source<R, NotUsed> single = Source.completionStage(answer).watchTermination((mat, done) -> {
      done.whenComplete((d, e) -> {
        if (!answer.isDone()) {
          canceled.complete(null);
        }
      });
      return mat;
    });
    return GrpcMarshalling.marshalStream(single, out, writer, system, GrpcErrors.MAPPER);
  }

  /** As the generated handler: a failed stream's error goes through {@link GrpcErrors#MAPPER}. */
  private <Q, R> CompletionStage<HttpResponse> stream(Stream<Q, R> m, HttpRequest request,
      GrpcProtocol.GrpcProtocolReader reader, GrpcProtocol.GrpcProtocolWriter writer) {
    CompletionStage<Source<Q, NotUsed>> requests = m.serverStream()
        ? GrpcMarshalling.unmarshal(request.entity(), m.in(), materializer, reader).thenApply(Source::single)
        : GrpcMarshalling.unmarshalStream(request.entity(), m.in(), materializer, reader);
    return requests
        .thenApply(in -> CoalescedChunks.of(GrpcMarshalling.marshalStream(
            pipeline.stream(new GrpcCall(m.name(), request), in, m.call()), m.out(), writer, system, GrpcErrors.MAPPER)))
        .exceptionally(e -> GrpcExceptionHandler.standard(e, GrpcErrors.MAPPER, writer, system));
  }
}
