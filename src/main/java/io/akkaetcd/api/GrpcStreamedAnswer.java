package io.akkaetcd.api;

import akka.NotUsed;
import akka.actor.ClassicActorSystemProvider;
import akka.grpc.GrpcProtocol;
import akka.grpc.GrpcServiceException;
import akka.grpc.internal.GrpcEntityHelpers$;
import akka.grpc.javadsl.GrpcMarshalling;
import akka.http.javadsl.model.HttpResponse;
import akka.http.scaladsl.model.HttpEntity;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import io.grpc.Status;

/**
 * A unary answer whose one message goes out as it is read ({@link EncodedMessage#isStreamed}):
 * gRPC's 5-byte prefix with the announced size, the parts as HTTP/2 data as the client's flow
 * control takes them, then the OK trailers. A failure after the first byte ends the call with its
 * status in the trailers; the client sees an error, never a short message taken for whole.
 */
final class GrpcStreamedAnswer {
  private GrpcStreamedAnswer() {}

  /** Whether {@code writer}'s protocol frames data as sent here (plain gRPC, not gRPC-Web's text). */
  static boolean streams(GrpcProtocol.GrpcProtocolWriter writer) {
    String subType = writer.contentType().mediaType().subType();
    return subType.startsWith("grpc") && !subType.startsWith("grpc-web");
  }

  @SuppressWarnings("unchecked")
  static HttpResponse response(EncodedMessage message, GrpcProtocol.GrpcProtocolWriter writer,
      ClassicActorSystemProvider system) {
    Source<HttpEntity.ChunkStreamPart, NotUsed> chunks = Source.single(prefix(message.size()))
        .concat(message.parts())
        .filter(part -> !part.isEmpty())
        .<HttpEntity.ChunkStreamPart>map(part -> new HttpEntity.Chunk(part, ""))
        .concat(Source.single(trailer(Status.OK, writer)))
        .recover(new akka.japi.pf.PFBuilder<Throwable, HttpEntity.ChunkStreamPart>()
            .match(Throwable.class, t -> trailer(status(t), writer)).build());
    HttpResponse headers = GrpcMarshalling.marshalStream(Source.<EncodedMessage>empty(), EncodedMessage.SERIALIZER,
        writer, system, GrpcErrors.MAPPER);
    return headers.withEntity(HttpEntity.Chunked$.MODULE$.apply(writer.contentType(),
        (akka.stream.scaladsl.Source<HttpEntity.ChunkStreamPart, Object>) (Object) chunks.asScala()));
  }

  /** gRPC's message prefix: not compressed, then the size as 4 bytes, big-endian. */
  private static ByteString prefix(long size) {
    int n = (int) size;
    return ByteString.fromArray(new byte[] {0, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
  }

  private static HttpEntity.ChunkStreamPart trailer(Status status, GrpcProtocol.GrpcProtocolWriter writer) {
    return writer.encodeFrame().apply(GrpcEntityHelpers$.MODULE$.trailer(status));
  }

  private static Status status(Throwable t) {
    return GrpcErrors.toGrpc(t) instanceof GrpcServiceException g ? g.getStatus() : Status.INTERNAL;
  }
}
