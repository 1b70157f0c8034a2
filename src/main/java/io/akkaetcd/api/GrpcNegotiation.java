package io.akkaetcd.api;

import akka.grpc.GrpcProtocol;
import akka.grpc.GrpcProtocol.GrpcProtocolReader;
import akka.grpc.GrpcProtocol.GrpcProtocolWriter;
import akka.grpc.internal.Codec;
import akka.grpc.internal.Codecs;
import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import scala.Option;
import scala.util.Try;

/**
 * Akka gRPC's protocol negotiation ({@code GrpcMarshalling.negotiated}) with each reader and writer
 * built once per protocol variant and codec instead of once per request.
 *
 * <p>Why: Akka gRPC 2.3.4's {@code GrpcProtocolNative.newReader}/{@code newWriter} build a new
 * reader and writer, each with a Flow blueprint of its own, for every call; that was about a tenth
 * of the bytes a put allocated (loadtest/RESULTS.md, 2026-11-24). Readers and writers are immutable
 * (functions and blueprints, materialized afresh by each use), so requests and threads can share
 * them. There are at most three variants (gRPC, gRPC-Web, gRPC-Web-text) and two codecs (identity,
 * gzip), so the caches stay tiny whatever clients send.
 */
final class GrpcNegotiation {
  private record Key(GrpcProtocol variant, Codec codec) {}

  private static final ConcurrentHashMap<Key, GrpcProtocolReader> READERS = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Key, GrpcProtocolWriter> WRITERS = new ConcurrentHashMap<>();

  private GrpcNegotiation() {}

  /**
   * etcd's (grpc-go's) answer to a request in a message encoding the server cannot decode:
   * UNIMPLEMENTED, trailers only, with grpc-go's text; empty for no encoding, identity and gzip.
   * {@link ClientRouter} asks before any service sees a request. (Akka gRPC's own negotiation fails
   * the stage there, which Akka HTTP turns into an HTTP 500.)
   */
  static Optional<HttpResponse> refusal(HttpRequest request) {
    Optional<HttpHeader> encoding = request.getHeader("grpc-encoding");
    if (encoding.isEmpty() || Codecs.detect(Option.apply(encoding.get().value())).isSuccess()) {
      return Optional.empty();
    }
    return Optional.of(ClientRouter.unimplemented(
        "grpc: Decompressor is not installed for grpc-encoding \"" + encoding.get().value() + "\""));
  }

  /**
   * As {@code GrpcMarshalling.negotiated}: empty when the content type is no gRPC variant;
   * otherwise {@code f} applied to the reader for the request's message encoding and the writer for
   * the encoding the client accepts; an unknown message encoding gets {@link #refusal}.
   */
  static Optional<CompletionStage<HttpResponse>> negotiated(HttpRequest request,
      BiFunction<GrpcProtocolReader, GrpcProtocolWriter, CompletionStage<HttpResponse>> f) {
    Option<GrpcProtocol> detected = GrpcProtocol.detect(request);
    if (detected.isEmpty()) {
      return Optional.empty();
    }
    GrpcProtocol variant = detected.get();
    GrpcProtocolWriter writer = WRITERS.computeIfAbsent(new Key(variant, Codecs.negotiate(request)),
        k -> k.variant().newWriter(k.codec()));
    Try<Codec> encoding = Codecs.detect(request);
    if (encoding.isFailure()) {
      return refusal(request).map(CompletableFuture::completedFuture);
    }
    GrpcProtocolReader reader = READERS.computeIfAbsent(new Key(variant, encoding.get()),
        k -> k.variant().newReader(k.codec()));
    return Optional.of(f.apply(reader, writer));
  }
}
