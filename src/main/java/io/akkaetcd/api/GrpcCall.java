package io.akkaetcd.api;

import akka.http.javadsl.model.AttributeKeys;
import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Transport;
import io.akkaetcd.tls.CertIdentity;
import java.net.InetSocketAddress;

/**
 * A gRPC call: its metadata is the request's headers, read only when a stage asks; its peer is
 * known when Akka HTTP adds the remote address to requests ({@code remote-address-attribute}).
 */
public final class GrpcCall extends Call {
  private final HttpRequest request;

  GrpcCall(String method, HttpRequest request) {
    super(method, Transport.GRPC);
    this.request = request;
  }

  @Override
  public String metadata(String key) {
    return request.getHeader(key).map(HttpHeader::value).orElse(null);
  }

  @Override
  public InetSocketAddress peer() {
    return peer(request);
  }

  /** The verified leaf's CN, from the session Akka HTTP attaches ({@code ssl-session-attribute}). */
  @Override
  public String certificateUser() {
    return certificateUser(request);
  }

  /** The CN of the client certificate verified on the request's connection, or null. */
  public static String certificateUser(HttpRequest request) {
    return request.getAttribute(AttributeKeys.sslSession)
        .flatMap(info -> CertIdentity.user(info.getSession())).orElse(null);
  }

  /** The address a request came from, if Akka HTTP added it ({@code remote-address-attribute}). */
  public static InetSocketAddress peer(HttpRequest request) {
    return request.getAttribute(AttributeKeys.remoteAddress)
        .flatMap(remote -> remote.getAddress().map(ip -> new InetSocketAddress(ip, remote.getPort())))
        .orElse(null);
  }
}
