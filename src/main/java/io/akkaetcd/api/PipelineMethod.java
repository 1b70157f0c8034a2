package io.akkaetcd.api;

import akka.NotUsed;
import akka.grpc.ProtobufSerializer;
import akka.stream.javadsl.Source;
import com.google.protobuf.Message;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Pipeline;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * One client method as a transport without gRPC's framing calls it (the JSON gateway): protobuf
 * messages in and out, through the member's one {@link Pipeline}, so its stages, metrics and
 * errors are the gRPC call's. Made by {@link GrpcServiceHandler.Builder} from the very
 * registration of the gRPC method: a service registered there is callable here with no other code.
 */
public final class PipelineMethod {
  /** How the method exchanges messages, as its .proto declares it. */
  public enum Kind { UNARY, SERVER_STREAM, BIDI_STREAM }

  private final String name;
  private final Kind kind;
  private final Message prototype;
  private final Function<Call, Function<Message, CompletionStage<Message>>> unary;
  private final Function<Call, Function<Source<Message, NotUsed>, Source<Message, NotUsed>>> stream;
  /** A unary answer that may come in parts ({@link #callForAnswer}); null: it comes whole. */
  private final Function<Call, Function<Message, CompletionStage<Answer>>> inParts;

  /**
   * A unary method's answer: the whole response, or a large one in {@code parts}, messages of the
   * response type, each with some of its fields in field order (a repeated field may go on in the
   * next part), which merged are the response. Parts are read from the store as they are pulled,
   * never held whole (etcd #12342).
   */
  public record Answer(Message whole, Source<Message, NotUsed> parts) {}

  private PipelineMethod(String name, Kind kind, Message prototype,
      Function<Call, Function<Message, CompletionStage<Message>>> unary,
      Function<Call, Function<Source<Message, NotUsed>, Source<Message, NotUsed>>> stream,
      Function<Call, Function<Message, CompletionStage<Answer>>> inParts) {
    this.name = name;
    this.kind = kind;
    this.prototype = prototype;
    this.unary = unary;
    this.stream = stream;
    this.inParts = inParts;
  }

  /** A unary method; null if its request type is no protobuf-java message. */
  @SuppressWarnings("unchecked")
  static <Q, R> PipelineMethod unary(String name, ProtobufSerializer<Q> in, Pipeline pipeline,
      Function<Q, CompletionStage<R>> service) {
    Message prototype = prototype(in);
    return prototype == null ? null : new PipelineMethod(name, Kind.UNARY, prototype,
        call -> request -> (CompletionStage<Message>) pipeline.unary(call, (Q) request, service), null, null);
  }

  /**
   * A unary method whose service also answers encoded ({@link EncodedMessage}): a large answer is
   * read in parts, each parsed as a message of the response type with the fields the part holds.
   */
  @SuppressWarnings("unchecked")
  static <Q, R> PipelineMethod encoded(String name, ProtobufSerializer<Q> in, ProtobufSerializer<R> out,
      Pipeline pipeline, Function<Q, CompletionStage<R>> service,
      Function<Q, CompletionStage<EncodedMessage>> encodedService) {
    PipelineMethod whole = unary(name, in, pipeline, service);
    Message response = prototype(out);
    if (whole == null || response == null) {
      return whole;
    }
    return new PipelineMethod(name, Kind.UNARY, whole.prototype, whole.unary, null,
        call -> request -> pipeline.unary(call, (Q) request, encodedService).thenApply(encoded -> encoded.isStreamed()
            ? new Answer(null, encoded.parts().map(bytes -> parsed(response, bytes)))
            : new Answer(parsed(response, encoded.whole()), null)));
  }

  private static Message parsed(Message prototype, akka.util.ByteString bytes) {
    try {
      return prototype.getParserForType().parseFrom(bytes.toArrayUnsafe());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException("a part of an encoded answer is not whole fields", e);
    }
  }

  /** A stream (a server stream's service takes its one request as a one-element source). */
  @SuppressWarnings("unchecked")
  static <Q, R> PipelineMethod stream(String name, boolean serverStream, ProtobufSerializer<Q> in,
      Pipeline pipeline, Function<Source<Q, NotUsed>, Source<R, NotUsed>> service) {
    Message prototype = prototype(in);
    return prototype == null ? null : new PipelineMethod(name, serverStream ? Kind.SERVER_STREAM : Kind.BIDI_STREAM,
        prototype, null, call -> requests -> pipeline.stream(call, requests.map(m -> (Q) m), service)
            .map(r -> (Message) r), null);
  }

  /** A message type's default instance (parsed from no bytes, as protobuf reads an empty message). */
  private static Message prototype(ProtobufSerializer<?> in) {
    return in.deserialize(akka.util.ByteString.emptyByteString()) instanceof Message m ? m : null;
  }

  /** etcd's full method name, e.g. {@code /etcdserverpb.KV/Range}. */
  public String name() {
    return name;
  }

  public Kind kind() {
    return kind;
  }

  /** A builder for a request of this method. */
  public Message.Builder newRequest() {
    return prototype.newBuilderForType();
  }

  /** Calls a unary method: its response, or the failure the gRPC call would fail with. */
  public CompletionStage<Message> call(Call call, Message request) {
    if (unary == null) {
      throw new IllegalStateException(name + " is a stream");
    }
    return unary.apply(call).apply(request);
  }

  /** Calls a unary method for its {@link Answer}: whole, or in parts when the method has it so and it is large. */
  public CompletionStage<Answer> callForAnswer(Call call, Message request) {
    return inParts == null ? call(call, request).thenApply(whole -> new Answer(whole, null))
        : inParts.apply(call).apply(request);
  }

  /** Opens a stream: its responses, failing as the gRPC stream would. */
  public Source<Message, NotUsed> open(Call call, Source<Message, NotUsed> requests) {
    if (stream == null) {
      throw new IllegalStateException(name + " is unary");
    }
    return stream.apply(call).apply(requests);
  }
}
