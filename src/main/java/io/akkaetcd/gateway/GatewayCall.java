package io.akkaetcd.gateway;

import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import io.akkaetcd.api.GrpcCall;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Transport;
import java.net.InetSocketAddress;

/**
 * A call through the gateway. Its metadata is what grpc-gateway forwards: the
 * {@code Authorization} header as {@code authorization} (etcd's auth reads the token there when
 * a call has no {@code token}) and headers prefixed {@code Grpc-Metadata-}.
 */
final class GatewayCall extends Call {
  private final HttpRequest request;

  GatewayCall(String method, HttpRequest request) {
    super(method, Transport.GATEWAY);
    this.request = request;
  }

  @Override
  public String metadata(String key) {
    String header = key.equals("authorization") ? "authorization" : "grpc-metadata-" + key;
    return request.getHeader(header).map(HttpHeader::value).orElse(null);
  }

  @Override
  public InetSocketAddress peer() {
    return GrpcCall.peer(request);
  }
}
