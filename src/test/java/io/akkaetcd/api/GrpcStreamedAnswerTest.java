package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.grpc.GrpcProtocol;
import akka.grpc.internal.GrpcProtocolNative$;
import akka.grpc.internal.Identity$;
import akka.http.javadsl.model.HttpEntity;
import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpResponse;
import akka.stream.Materializer;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import io.akkaetcd.errors.EtcdError;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A streamed answer on the wire: gRPC's prefix with the announced size, the parts, then OK
 * trailers; a failure after the first part ends the call with its status in the trailers.
 */
class GrpcStreamedAnswerTest {
  private static ActorSystem system;
  private static Materializer materializer;
  private static final GrpcProtocol.GrpcProtocolWriter WRITER = GrpcProtocolNative$.MODULE$.newWriter(Identity$.MODULE$);

  @BeforeAll
  static void startSystem() {
    system = ActorSystem.create("GrpcStreamedAnswerTest");
    materializer = Materializer.createMaterializer(system);
  }

  @AfterAll
  static void stopSystem() {
    system.terminate();
  }

  @Test
  void partsFollowThePrefixAndOkTrailersEndTheCall() {
    EncodedMessage m = EncodedMessage.streamed(6, Source.from(List.of(ByteString.fromString("abc"),
        ByteString.emptyByteString(), ByteString.fromString("def"))));
    List<HttpEntity.ChunkStreamPart> chunks = chunks(GrpcStreamedAnswer.response(m, WRITER, system));
    ByteString data = ByteString.emptyByteString();
    for (HttpEntity.ChunkStreamPart c : chunks) {
      data = data.concat(c.data());
    }
    assertEquals(ByteString.fromArray(new byte[] {0, 0, 0, 0, 6}).concat(ByteString.fromString("abcdef")), data);
    HttpEntity.ChunkStreamPart last = chunks.get(chunks.size() - 1);
    assertTrue(last.isLastChunk());
    assertEquals("0", trailers(last).get("grpc-status"));
  }

  @Test
  void aFailureAfterTheFirstPartEndsTheCallWithItsStatus() {
    EncodedMessage m = EncodedMessage.streamed(1000, Source.single(ByteString.fromString("abc"))
        .concat(Source.failed(EtcdError.COMPACTED.exception())));
    List<HttpEntity.ChunkStreamPart> chunks = chunks(GrpcStreamedAnswer.response(m, WRITER, system));
    HttpEntity.ChunkStreamPart last = chunks.get(chunks.size() - 1);
    assertTrue(last.isLastChunk());
    Map<String, String> trailers = trailers(last);
    assertEquals("11", trailers.get("grpc-status"), trailers.toString());
    assertEquals(EtcdError.COMPACTED.text(), trailers.get("grpc-message"));
  }

  private static List<HttpEntity.ChunkStreamPart> chunks(HttpResponse r) {
    return ((HttpEntity.Chunked) r.entity()).getChunks().runWith(Sink.seq(), materializer)
        .toCompletableFuture().join();
  }

  private static Map<String, String> trailers(HttpEntity.ChunkStreamPart last) {
    Map<String, String> out = new HashMap<>();
    for (HttpHeader h : last.getTrailerHeaders()) {
      out.put(h.name(), h.value());
    }
    return out;
  }
}
