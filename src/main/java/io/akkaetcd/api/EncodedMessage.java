package io.akkaetcd.api;

import akka.NotUsed;
import akka.grpc.ProtobufSerializer;
import akka.stream.javadsl.Source;
import akka.util.ByteString;

/**
 * A response message already in protobuf's bytes, made by the service instead of a serializer:
 * whole, or, for a large one, a stream of its parts that the gRPC transport sends as they are
 * read ({@link GrpcStreamedAnswer}), so the message is never held whole (etcd #12342).
 */
final class EncodedMessage {
  /** The codec of a whole message for Akka gRPC's marshalling; a streamed one never goes through it. */
  static final ProtobufSerializer<EncodedMessage> SERIALIZER = new ProtobufSerializer<>() {
    @Override
    public ByteString serialize(EncodedMessage m) {
      if (m.whole == null) {
        throw new IllegalStateException("a streamed message is sent by GrpcStreamedAnswer");
      }
      return m.whole;
    }

    @Override
    public EncodedMessage deserialize(ByteString bytes) {
      return whole(bytes);
    }
  };

  private final long size;
  private final ByteString whole;
  private final Source<ByteString, NotUsed> parts;

  private EncodedMessage(long size, ByteString whole, Source<ByteString, NotUsed> parts) {
    this.size = size;
    this.whole = whole;
    this.parts = parts;
  }

  static EncodedMessage whole(ByteString bytes) {
    return new EncodedMessage(bytes.size(), bytes, null);
  }

  /**
   * @param parts the message's {@code size} bytes in order, each part whole top-level fields (so
   *     each parses as a message of its own, {@link PipelineMethod#callForAnswer}); running it frees
   *     what they are read from
   */
  static EncodedMessage streamed(long size, Source<ByteString, NotUsed> parts) {
    return new EncodedMessage(size, null, parts);
  }

  long size() {
    return size;
  }

  boolean isStreamed() {
    return whole == null;
  }

  /** A whole message's bytes; null for a streamed one. */
  ByteString whole() {
    return whole;
  }

  /** The message's bytes in parts (one part for a whole message). */
  Source<ByteString, NotUsed> parts() {
    return whole != null ? Source.single(whole) : parts;
  }
}
