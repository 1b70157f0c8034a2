package io.akkaetcd.api.wire;

import akka.stream.Attributes;
import akka.stream.BidiShape;
import akka.stream.Inlet;
import akka.stream.Outlet;
import akka.stream.stage.AbstractInHandler;
import akka.stream.stage.AbstractOutHandler;
import akka.stream.stage.GraphStage;
import akka.stream.stage.GraphStageLogic;
import akka.util.ByteString;

/**
 * Sits between a client's TCP connection and Akka HTTP's server stack: the client's bytes go
 * through {@link InboundFrames}, the server's are watched by {@link OutboundFrames}. Each
 * direction completes, fails and cancels on its own, as the connection beneath would.
 */
final class ClientConnectionStage extends GraphStage<BidiShape<ByteString, ByteString, ByteString, ByteString>> {
  private final Inlet<ByteString> fromServer = Inlet.create("ClientConnection.fromServer");
  private final Outlet<ByteString> toClient = Outlet.create("ClientConnection.toClient");
  private final Inlet<ByteString> fromClient = Inlet.create("ClientConnection.fromClient");
  private final Outlet<ByteString> toServer = Outlet.create("ClientConnection.toServer");
  private final BidiShape<ByteString, ByteString, ByteString, ByteString> shape =
      BidiShape.of(fromServer, toClient, fromClient, toServer);

  @Override
  public BidiShape<ByteString, ByteString, ByteString, ByteString> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    StreamStates streams = new StreamStates();
    InboundFrames inbound = new InboundFrames(streams);
    OutboundFrames outbound = new OutboundFrames(streams);
    return new GraphStageLogic(shape) {
      {
        setHandler(fromServer, new AbstractInHandler() {
          @Override
          public void onPush() {
            ByteString bytes = grab(fromServer);
            // The server speaks only after the client's first bytes chose the protocol.
            if (inbound.http2()) {
              outbound.observe(bytes);
            }
            push(toClient, bytes);
          }

          @Override
          public void onUpstreamFinish() {
            complete(toClient);
          }

          @Override
          public void onUpstreamFailure(Throwable ex) {
            fail(toClient, ex);
          }
        });
        setHandler(toClient, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(fromServer);
          }

          @Override
          public void onDownstreamFinish(Throwable cause) {
            cancel(fromServer, cause);
          }
        });
        setHandler(fromClient, new AbstractInHandler() {
          @Override
          public void onPush() {
            ByteString out = inbound.process(grab(fromClient));
            if (out.isEmpty()) {
              pull(fromClient);
            } else {
              push(toServer, out);
            }
          }

          @Override
          public void onUpstreamFinish() {
            ByteString rest = inbound.finish();
            if (rest.isEmpty()) {
              complete(toServer);
            } else {
              emit(toServer, rest, () -> complete(toServer));
            }
          }

          @Override
          public void onUpstreamFailure(Throwable ex) {
            fail(toServer, ex);
          }
        });
        setHandler(toServer, new AbstractOutHandler() {
          @Override
          public void onPull() {
            pull(fromClient);
          }

          @Override
          public void onDownstreamFinish(Throwable cause) {
            cancel(fromClient, cause);
          }
        });
      }
    };
  }
}
