package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.Done;
import akka.NotUsed;
import akka.actor.ActorSystem;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpResponse;
import akka.http.scaladsl.model.HttpEntity;
import akka.stream.Materializer;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;

/** Messages that wait behind a busy connection go out joined, in order, with the trailers last. */
class CoalescedChunksTest {
  private static ActorSystem system;
  private static Materializer materializer;

  @BeforeAll
  static void startSystem() {
    system = ActorSystem.create("CoalescedChunksTest");
    materializer = Materializer.createMaterializer(system);
  }

  @AfterAll
  static void stopSystem() {
    system.terminate();
  }

  @Test
  void messagesWaitingForTheConnectionGoOutAsOneChunkThenTheTrailers() {
    List<HttpEntity.ChunkStreamPart> parts = new ArrayList<>();
    ByteString expected = ByteString.emptyByteString();
    for (int i = 0; i < 100; i++) {
      ByteString message = ByteString.fromString("message " + i + ";");
      parts.add(new HttpEntity.Chunk(message, ""));
      expected = expected.concat(message);
    }
    HttpEntity.ChunkStreamPart trailers = HttpEntity.LastChunk$.MODULE$;
    parts.add(trailers);
    CompletableFuture<Done> upstreamDone = new CompletableFuture<>();

    // Nobody reads until every message was made: all of them wait, as behind a busy connection.
    Publisher<HttpEntity.ChunkStreamPart> out = chunks(CoalescedChunks.of(response(Source.from(parts)
        .watchTermination((m, done) -> {
          done.whenComplete((d, e) -> upstreamDone.complete(Done.getInstance()));
          return m;
        })))).runWith(Sink.asPublisher(akka.stream.javadsl.AsPublisher.WITHOUT_FANOUT), materializer);
    upstreamDone.join();
    List<HttpEntity.ChunkStreamPart> read = Source.fromPublisher(out).runWith(Sink.seq(), materializer)
        .toCompletableFuture().join();

    assertEquals(2, read.size(), "one joined chunk and the trailers: " + read);
    assertEquals(expected, read.get(0).data());
    assertFalse(read.get(0).isLastChunk());
    assertTrue(read.get(1).isLastChunk());
  }

  @Test
  void aReaderThatKeepsUpGetsTheSameBytesInOrder() {
    List<HttpEntity.ChunkStreamPart> parts = new ArrayList<>();
    ByteString expected = ByteString.emptyByteString();
    for (int i = 0; i < 1000; i++) {
      ByteString message = ByteString.fromArray(new byte[1 + i % 300]);
      parts.add(new HttpEntity.Chunk(message, ""));
      expected = expected.concat(message);
    }
    parts.add(HttpEntity.LastChunk$.MODULE$);
    List<HttpEntity.ChunkStreamPart> read = chunks(CoalescedChunks.of(response(Source.from(parts))))
        .runWith(Sink.seq(), materializer).toCompletableFuture().join();
    ByteString data = ByteString.emptyByteString();
    for (HttpEntity.ChunkStreamPart c : read.subList(0, read.size() - 1)) {
      assertFalse(c.isLastChunk());
      assertTrue(c.data().size() <= CoalescedChunks.MAX_BYTES, "a joined chunk stays within the bound");
      data = data.concat(c.data());
    }
    assertEquals(expected, data);
    assertTrue(read.get(read.size() - 1).isLastChunk());
  }

  @SuppressWarnings("unchecked")
  private static HttpResponse response(Source<HttpEntity.ChunkStreamPart, ?> chunks) {
    return HttpResponse.create().withEntity(HttpEntity.Chunked$.MODULE$.apply(
        (akka.http.scaladsl.model.ContentType) ContentTypes.APPLICATION_OCTET_STREAM,
        (akka.stream.scaladsl.Source<HttpEntity.ChunkStreamPart, Object>) (Object) chunks.asScala()));
  }

  private static Source<HttpEntity.ChunkStreamPart, NotUsed> chunks(HttpResponse r) {
    return Source.<HttpEntity.ChunkStreamPart, Object>fromGraph(((HttpEntity.Chunked) r.entity()).chunks())
        .mapMaterializedValue(m -> NotUsed.getInstance());
  }
}
