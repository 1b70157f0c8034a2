package io.akkaetcd.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.server.Flags.FlagException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding API: a member in a system of its own, configured by builder or HOCON, with etcd's errors. */
class EmbeddedEtcdTest {
  @TempDir Path tmp;

  private static final ByteString KEY = ByteString.copyFromUtf8("embedded/k");

  /** A lone member on loopback: ephemeral client port (clientAddresses gives it), peer URL never bound. */
  private EtcdConfig.Builder lone(String name, Path dataDir) {
    String peer = "http://127.0.0.1:0";
    return EtcdConfig.builder().name(name).dataDir(dataDir)
        .listenClientUrls("http://127.0.0.1:0").advertiseClientUrls("http://127.0.0.1:0")
        .listenPeerUrls(peer).initialAdvertisePeerUrls(peer).initialCluster(name + "=" + peer);
  }

  @Test
  void startsServesAndStopsInASystemOfItsOwn() throws Exception {
    Path dir = tmp.resolve("own");
    EtcdConfig config = lone("m1", dir).build();
    EmbeddedEtcd etcd = EmbeddedEtcd.start(config);
    try {
      etcd.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
      List<InetSocketAddress> addresses = etcd.clientAddresses();
      assertEquals(1, addresses.size());
      assertTrue(addresses.get(0).getPort() > 0, "bound to a real port: " + addresses);
      try (Socket s = new Socket(addresses.get(0).getAddress(), addresses.get(0).getPort())) {
        assertTrue(s.isConnected(), "the client listener accepts connections");
      }
      etcd.client().kv().put(KEY, ByteString.copyFromUtf8("v1")).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals("v1", etcd.client().kv().get(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS)
          .getKvs(0).getValue().toStringUtf8());
    } finally {
      etcd.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    assertTrue(etcd.whenTerminated().toCompletableFuture().isDone(), "terminated once stopped");
    // The store was closed: the same data directory opens again, with the value.
    try (EmbeddedEtcd again = EmbeddedEtcd.start(lone("m1", dir).build())) {
      again.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals("v1", again.client().kv().get(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS)
          .getKvs(0).getValue().toStringUtf8());
    }
  }

  @Test
  void readsEtcdsFlagNamesFromHocon() throws Exception {
    Path dir = tmp.resolve("hocon");
    Config hocon = ConfigFactory.parseString("""
        akka-etcd {
          name = "h1"
          data-dir = "%s"
          listen-client-urls = []
          listen-peer-urls = "http://127.0.0.1:0"
          initial-advertise-peer-urls = ["http://127.0.0.1:0"]
          initial-cluster = "h1=http://127.0.0.1:0"
          heartbeat-interval = 50ms
          election-timeout = 500
          max-txn-ops = 16
          auto-compaction-mode = revision
          auto-compaction-retention = "1000"
        }
        """.formatted(dir.toString().replace("\\", "\\\\"))).withFallback(ConfigFactory.load());
    EtcdConfig config = EtcdConfig.fromConfig(hocon);
    assertEquals("h1", config.name());
    assertEquals(dir, config.dataDir());
    assertEquals(List.of(), config.listenClientUrls());
    assertEquals(List.of(URI.create("http://127.0.0.1:0")), config.initialAdvertisePeerUrls());
    assertEquals(Duration.ofMillis(50), config.heartbeatInterval());
    assertEquals(Duration.ofMillis(500), config.electionTimeout());
    assertEquals(16, config.maxTxnOps());
    assertEquals("revision", config.autoCompactionMode());
    // etcd's defaults for what is not given.
    assertEquals(100000, config.snapshotCount());
    assertEquals("etcd-cluster", config.initialClusterToken());
    // No client listener: served by the in-process client only.
    try (EmbeddedEtcd etcd = EmbeddedEtcd.start(config)) {
      etcd.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals(List.of(), etcd.clientAddresses());
      etcd.client().kv().put(KEY, ByteString.copyFromUtf8("in-process")).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertEquals(1, etcd.client().kv().get(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS).getCount());
    }
  }

  @Test
  void badSettingsFailWithEtcdsText() {
    FlagException election = assertThrows(FlagException.class, () -> EtcdConfig.builder()
        .heartbeatInterval(Duration.ofMillis(100)).electionTimeout(Duration.ofMillis(200)).build());
    assertEquals("--election-timeout[200ms] should be at least as 5 times as --heartbeat-interval[100ms]",
        election.getMessage());
    FlagException state = assertThrows(FlagException.class, () -> EtcdConfig.fromConfig(
        ConfigFactory.parseString("akka-etcd.initial-cluster-state = maybe").withFallback(ConfigFactory.load())));
    assertEquals("invalid value \"maybe\" for flag -initial-cluster-state: invalid value",
        state.getMessage());
    FlagException unknown = assertThrows(FlagException.class, () -> EtcdConfig.builder()
        .flag("no-such-flag", "1").build());
    assertEquals("flag provided but not defined: -no-such-flag", unknown.getMessage());
  }
}
