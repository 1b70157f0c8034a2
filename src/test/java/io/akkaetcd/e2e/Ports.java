package io.akkaetcd.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for test servers (never etcd's 2379/2380).
 *
 * <p>A port is picked before the server binds it, so something else may take it in between. Two
 * rules keep that from happening: ports come from below the kernel's ephemeral range (Linux's is
 * 32768–60999), which is where every outgoing connection of the suite gets its local port and
 * where {@code bind(0)} picks; and no port is handed out twice in one run, so two servers of one
 * test cannot be given the same port. (Handing out {@code bind(0)}'s port made etcd fail, now and
 * then, with "bind: address already in use".) Ports 20000-20199 and 23790 are left out too: etcd's
 * own e2e tests (bin/etcd-e2e) bind them, fixed, so both suites can run side by side. Every test
 * that starts a server takes its ports from here (docs/testing.md).
 */
final class Ports {
  private static final int LOW = 12_000;
  private static final int HIGH = 32_000;
  /** etcd's e2e tests: members at 20000 + 5i (client), +1 (peer), +2 (metrics); the gateway at 23790. */
  private static final int ETCD_E2E_LOW = 20_000;
  private static final int ETCD_E2E_HIGH = 20_200;
  private static final int ETCD_E2E_GATEWAY = 23_790;
  private static final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

  private Ports() {}

  static int free() {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
      if (!reserved(port) && bindable(port) && handedOut.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free loopback port in " + LOW + "-" + HIGH);
  }

  /** {@code n} consecutive free ports, the first returned (a script that numbers its own ports). */
  static int freeRange(int n) {
    for (int attempt = 0; attempt < 1000; attempt++) {
      int first = ThreadLocalRandom.current().nextInt(LOW, HIGH - n);
      boolean all = true;
      for (int p = first; p < first + n && all; p++) {
        all = !reserved(p) && !handedOut.contains(p) && bindable(p);
      }
      if (all) {
        for (int p = first; p < first + n; p++) {
          handedOut.add(p);
        }
        return first;
      }
    }
    throw new IllegalStateException("no " + n + " consecutive free loopback ports in " + LOW + "-" + HIGH);
  }

  private static boolean reserved(int port) {
    return (port >= ETCD_E2E_LOW && port < ETCD_E2E_HIGH) || port == ETCD_E2E_GATEWAY;
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
