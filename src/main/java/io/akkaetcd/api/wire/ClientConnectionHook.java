package io.akkaetcd.api.wire;

import akka.NotUsed;
import akka.actor.ActorSystem;
import akka.http.impl.engine.http2.TelemetrySpi;
import akka.http.scaladsl.model.HttpRequest;
import akka.http.scaladsl.model.HttpResponse;
import akka.stream.scaladsl.BidiFlow;
import akka.stream.scaladsl.Flow;
import akka.stream.scaladsl.Tcp;

/**
 * Puts a {@link ClientConnectionStage} under Akka HTTP's server stack on every accepted client
 * connection. Akka HTTP 10.5 offers no other place below its HTTP/2 framing: its per-connection
 * hook is the telemetry SPI ({@code @InternalStableApi}), configured as
 * {@code akka.http.http2-telemetry-class} and built once per ActorSystem with the system as its
 * argument; the other two interception points stay identities.
 */
public final class ClientConnectionHook implements TelemetrySpi {
  public ClientConnectionHook(ActorSystem system) {
    // nothing to keep: each connection gets its own stage
  }

  @Override
  public Flow<Tcp.IncomingConnection, Tcp.IncomingConnection, NotUsed> serverBinding() {
    return akka.stream.javadsl.Flow.<Tcp.IncomingConnection>create()
        .map(c -> new Tcp.IncomingConnection(c.localAddress(), c.remoteAddress(),
            akka.stream.javadsl.BidiFlow.fromGraph(new ClientConnectionStage()).join(c.flow().asJava()).asScala()))
        .asScala();
  }

  @Override
  public BidiFlow<HttpRequest, HttpRequest, HttpResponse, HttpResponse, NotUsed> client() {
    return akka.stream.javadsl.BidiFlow.<HttpRequest, HttpResponse>identity().asScala();
  }

  @Override
  public BidiFlow<HttpResponse, HttpResponse, HttpRequest, HttpRequest, NotUsed> serverConnection() {
    return akka.stream.javadsl.BidiFlow.<HttpResponse, HttpRequest>identity().asScala();
  }
}
