package io.akkaetcd.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1, picked by binding port 0 (never etcd's 2379/2380). */
final class FreePorts {
  private FreePorts() {}

  static int next() {
    while (true) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
        int port = socket.getLocalPort();
        if (port != 2379 && port != 2380) {
          return port;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
