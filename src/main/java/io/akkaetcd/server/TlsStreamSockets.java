package io.akkaetcd.server;

import io.akkaetcd.raft.peer.StreamSockets;
import io.akkaetcd.tls.PeerSslEngineProvider;
import io.akkaetcd.tls.TlsConfig;
import java.io.IOException;
import java.net.Socket;
import javax.net.ssl.SSLSocket;

/**
 * Raft streams over TLS with etcd's peer flags: the same contexts, checks (CA, CRL, allowed CN or
 * hostname, the dialed host's name) and suites as Artery's TLS transport
 * ({@link PeerSslEngineProvider}), on JSSE sockets layered over the stream's connection. The
 * handshake is made here, so a peer that is not trusted never gets a stream up.
 */
final class TlsStreamSockets implements StreamSockets {
  private final TlsConfig server;
  private final TlsConfig client;

  TlsStreamSockets(PeerSslEngineProvider.Sides sides) {
    this.server = sides.server();
    this.client = sides.client();
  }

  @Override
  public Socket dialed(Socket raw, String host, int port) throws IOException {
    SSLSocket s = (SSLSocket) client.context().getSocketFactory().createSocket(raw, host, port, true);
    s.setSSLParameters(client.parameters());
    s.startHandshake();
    return s;
  }

  @Override
  public Socket accepted(Socket raw) throws IOException {
    SSLSocket s = (SSLSocket) server.context().getSocketFactory().createSocket(raw, null, true);
    s.setSSLParameters(server.parameters());
    s.startHandshake();
    return s;
  }
}
