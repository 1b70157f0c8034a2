package io.akkaetcd.api;

import akka.grpc.ProtobufSerializer;
import io.akkaetcd.metrics.EtcdMetrics;

/**
 * A method's message codec that counts what crosses it, as etcd's v3rpc codec does: every message
 * unmarshalled adds its size to etcd_network_client_grpc_received_bytes_total, every one
 * marshalled to …_sent_bytes_total. A stream's messages also count in
 * grpc_server_msg_{received,sent}_total (a unary call's are counted by {@link GrpcMetricsObserver}).
 */
final class CountingSerializer<T> implements ProtobufSerializer<T> {
  private final ProtobufSerializer<T> codec;
  private final EtcdMetrics metrics;
  /** The full method name whose stream messages count, or null for a unary method. */
  private final String streamMethod;

  CountingSerializer(ProtobufSerializer<T> codec, EtcdMetrics metrics, String streamMethod) {
    this.codec = codec;
    this.metrics = metrics;
    this.streamMethod = streamMethod;
  }

  @Override
  public akka.util.ByteString serialize(T message) {
    akka.util.ByteString bytes = codec.serialize(message);
    metrics.clientGrpcSentBytes.inc(bytes.size());
    if (streamMethod != null) {
      metrics.grpc().sent(streamMethod);
    }
    return bytes;
  }

  /** A unary message sent without this codec ({@link GrpcStreamedAnswer}): its size counts all the same. */
  void sent(long bytes) {
    metrics.clientGrpcSentBytes.inc(bytes);
  }

  @Override
  public T deserialize(akka.util.ByteString bytes) {
    metrics.clientGrpcReceivedBytes.inc(bytes.size());
    if (streamMethod != null) {
      metrics.grpc().received(streamMethod);
    }
    return codec.deserialize(bytes);
  }
}
