package io.akkaetcd.examples.election;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for the nodes: bindable now, below Linux's ephemeral range (32768+, where
 * outgoing connections take theirs), never etcd's 2379/2380 nor the 20000-20199 and 23790 that
 * etcd's own e2e tests bind, and never handed out twice in one run.
 */
final class FreePorts {
  private static final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  static int next() {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(12_000, 32_000);
      boolean etcdE2e = (port >= 20_000 && port < 20_200) || port == 23_790;
      if (!etcdE2e && bindable(port) && handedOut.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free loopback port");
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
