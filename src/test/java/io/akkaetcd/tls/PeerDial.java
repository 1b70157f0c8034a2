package io.akkaetcd.tls;

import java.io.IOException;
import javax.net.ssl.SSLSocket;

/** Dials 127.0.0.1 as a peer does: a socket from the client side's {@link TlsConfig}. */
final class PeerDial {
  private PeerDial() {}

  static JdkClient.Connection connect(TlsConfig client, int port) throws IOException {
    SSLSocket socket = (SSLSocket) client.context().getSocketFactory().createSocket("127.0.0.1", port);
    socket.setSSLParameters(client.parameters());
    return JdkClient.Connection.open(socket);
  }
}
