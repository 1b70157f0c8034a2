package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.akkaetcd.errors.StartupException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** unix:// peer URLs (etcd's TestEtcdUnixPeers): a member alone takes them; a cluster cannot. */
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
}
