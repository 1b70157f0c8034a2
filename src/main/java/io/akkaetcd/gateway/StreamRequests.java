package io.akkaetcd.gateway;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import akka.util.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A stream's requests as grpc-gateway's handler reads them: successive JSON values of the body,
 * each decoded as Go's {@code json.Decoder} does ({@link GoJsonDecoder}), as the bytes arrive. A
 * value that fails to decode is the last element, a {@link Request} carrying the error: the
 * gateway fails the call with it when it is the first, else stops reading there.
 */
final class StreamRequests {
  private StreamRequests() {}

  /** A decoded request, or the error that ended the requests. */
  record Request(Message message, String error) {}

  static <M> Source<Request, NotUsed> of(Source<ByteString, M> body, Supplier<Message.Builder> builder) {
    return body.map(Optional::of).concat(Source.single(Optional.<ByteString>empty()))
        .statefulMapConcat(() -> new Framer(builder))
        .mapMaterializedValue(m -> NotUsed.getInstance());
  }

  /** Accumulates body bytes and cuts each complete value off their front. */
  private static final class Framer implements akka.japi.function.Function<Optional<ByteString>, Iterable<Request>> {
    private final Supplier<Message.Builder> builder;
    private ByteString pending = ByteString.emptyByteString();
    private boolean failed;

    Framer(Supplier<Message.Builder> builder) {
      this.builder = builder;
    }

    @Override
    public Iterable<Request> apply(Optional<ByteString> chunk) {
      if (failed) {
        return List.of();
      }
      boolean eof = chunk.isEmpty();
      chunk.ifPresent(bytes -> pending = pending.concat(bytes));
      List<Request> out = new ArrayList<>();
      while (!failed) {
        GoJsonDecoder.Decoded value;
        try {
          value = GoJsonDecoder.first(pending.toArray());
        } catch (GoJsonDecoder.DecodeException e) {
          if (e.incomplete && !eof) {
            break;
          }
          out.add(failure(e.getMessage()));
          break;
        }
        if (value.json() == null && value.end() == pending.size()) {
          break; // only blanks so far: EOF at the end, else wait
        }
        pending = pending.drop(value.end());
        try {
          out.add(new Request(JsonMapping.parseDecoded(value.json(), builder.get()), null));
        } catch (InvalidProtocolBufferException | RuntimeException e) {
          out.add(failure(e.getMessage()));
        }
      }
      return out;
    }

    private Request failure(String error) {
      failed = true;
      return new Request(null, error);
    }
  }
}
