package io.akkaetcd.raft.peer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * How a Raft stream's connection is made secure, if at all, once its preamble has crossed in
 * plain text: the dialing member wraps the socket it connected, the accepting member the one it
 * accepted. Plain text for {@code http://} peer URLs; TLS with etcd's peer flags for
 * {@code https://} ones (the server package wires that in).
 */
public interface StreamSockets {
  StreamSockets PLAIN = new StreamSockets() {
    @Override
    public Socket dialed(Socket raw, String host, int port) {
      return raw;
    }

    @Override
    public Socket accepted(Socket raw) {
      return raw;
    }
  };

  /** The socket to write the stream on, after {@code raw} connected to {@code host:port}. */
  Socket dialed(Socket raw, String host, int port) throws IOException;

  /** The socket to read the stream from, after {@code raw} was accepted and its preamble read. */
  Socket accepted(Socket raw) throws IOException;

  /** A plain connection to {@code address} within {@code timeoutMillis}, without Nagle's delay; never to itself. */
  static Socket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(address, timeoutMillis);
      if (s.getLocalPort() == s.getPort() && s.getLocalAddress().equals(s.getInetAddress())) {
        // TCP's simultaneous open: dialing a free port of this host can connect the socket to
        // itself, which would then hold the port its member needs to listen on again.
        throw new java.net.ConnectException("connected to itself: nothing listens on " + address);
      }
      return s;
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }
}
