package io.akkaetcd.api;

import akka.NotUsed;
import akka.http.javadsl.model.HttpResponse;
import akka.http.scaladsl.model.HttpEntity;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import akka.util.ByteStringBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * A response stream's gRPC messages, joined while the HTTP/2 side is busy: data chunks (each a
 * framed message) that wait behind the one being written go out as one chunk, up to
 * {@value #MAX_BYTES} bytes, so a burst (a revision's events for every watch of a stream) costs
 * the connection one hand-over instead of one per message. The bytes and their order are as
 * before; a reader that keeps up gets each message alone, as soon as it is made.
 */
final class CoalescedChunks {
  /** A joined chunk holds messages up to about this many bytes (one bigger message goes alone). */
  static final int MAX_BYTES = 64 * 1024;

  private CoalescedChunks() {}

  @SuppressWarnings("unchecked")
  static HttpResponse of(HttpResponse response) {
    if (!(response.entity() instanceof HttpEntity.Chunked chunked)) {
      return response;
    }
    Source<HttpEntity.ChunkStreamPart, NotUsed> parts =
        Source.<HttpEntity.ChunkStreamPart, Object>fromGraph(chunked.chunks()).mapMaterializedValue(m -> NotUsed.getInstance());
    Source<HttpEntity.ChunkStreamPart, NotUsed> joined = parts
        .batchWeighted(MAX_BYTES, part -> (long) part.data().size(), Joined::new, Joined::add)
        .mapConcat(Joined::parts);
    return response.withEntity(HttpEntity.Chunked$.MODULE$.apply(chunked.contentType(),
        (akka.stream.scaladsl.Source<HttpEntity.ChunkStreamPart, Object>) (Object) joined.asScala()));
  }

  /** Data chunks in arrival order, joined; a last chunk (the trailers) ends it as it came. */
  private static final class Joined {
    private final ByteStringBuilder data = new ByteStringBuilder();
    private HttpEntity.ChunkStreamPart single;
    private int count;
    private HttpEntity.ChunkStreamPart last;

    Joined(HttpEntity.ChunkStreamPart first) {
      add(first);
    }

    Joined add(HttpEntity.ChunkStreamPart part) {
      if (part.isLastChunk()) {
        last = part;
      } else {
        if (count++ == 0) {
          single = part;
        }
        data.append(part.data());
      }
      return this;
    }

    List<HttpEntity.ChunkStreamPart> parts() {
      List<HttpEntity.ChunkStreamPart> out = new ArrayList<>(2);
      if (count == 1) {
        out.add(single);
      } else if (count > 1) {
        ByteString bytes = data.result();
        out.add(new HttpEntity.Chunk(bytes, ""));
      }
      if (last != null) {
        out.add(last);
      }
      return out;
    }
  }
}
