package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.akkaetcd.errors.StartupException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * unix:// peer URLs (etcd's TestEtcdUnixPeers): a member alone takes them; a cluster cannot. The
 * launcher's early check finds a taken port of a plain member, and leaves a TLS one to the full check.
 */
class ListenUrlsTest {
  private static ServerConfig config(String... args) {
    return ServerConfig.fromFlags(Flags.parse(args, Map.of()));
  }

  @Test
  void aMemberAloneTakesUnixPeerUrls() {
    ServerConfig c = config("--name", "e1", "--listen-client-urls", "http://127.0.0.1:0",
        "--advertise-client-urls", "http://127.0.0.1:0", "--listen-peer-urls", "unix://etcd.unix:1",
        "--initial-advertise-peer-urls", "unix://etcd.unix:1", "--initial-cluster", "e1=unix://etcd.unix:1");
    assertEquals("unix", c.listenPeerUrls().get(0).getScheme());
    assertDoesNotThrow(() -> ListenUrls.check(c));
  }

  @Test
  void aClusterOnUnixPeerUrlsIsRefusedWithOneLine() {
    ServerConfig c = config("--name", "e1", "--listen-client-urls", "http://127.0.0.1:0",
        "--advertise-client-urls", "http://127.0.0.1:0", "--listen-peer-urls", "unix://e1.unix:1",
        "--initial-advertise-peer-urls", "unix://e1.unix:1",
        "--initial-cluster", "e1=unix://e1.unix:1,e2=unix://e2.unix:1");
    StartupException e = assertThrows(StartupException.class, () -> ListenUrls.check(c));
    assertEquals("unix:// peer URLs are served only by a member alone: akka-etcd's peer transport is TCP"
        + " (use http:// peer URLs for a cluster)", e.getMessage());
  }

  @Test
  void clientUrlsStayTcp() {
    assertThrows(Flags.FlagException.class, () -> config("--listen-client-urls", "unix://c.unix:1",
        "--advertise-client-urls", "http://127.0.0.1:1"));
  }

  private static ServerConfig member(String clientUrl) {
    return config("--name", "e1", "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
        "--listen-peer-urls", "http://127.0.0.1:0", "--initial-advertise-peer-urls", "http://127.0.0.1:0",
        "--initial-cluster", "e1=http://127.0.0.1:0");
  }

  @Test
  void theEarlyCheckFindsATakenClientPort() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      StartupException e = assertThrows(StartupException.class,
          () -> ListenUrls.checkEarly(member("http://127.0.0.1:" + port)));
      assertEquals("listen tcp 127.0.0.1:" + port + ": bind: address already in use", e.getMessage());
    }
  }

  @Test
  void theEarlyCheckLeavesTlsToTheFullCheck() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      ServerConfig tls = member("https://127.0.0.1:" + taken.getLocalPort());
      assertDoesNotThrow(() -> ListenUrls.checkEarly(tls));
      // The full check refuses it for its missing certificate first, as etcd does.
      assertThrows(StartupException.class, () -> ListenUrls.check(tls));
    }
  }
}
