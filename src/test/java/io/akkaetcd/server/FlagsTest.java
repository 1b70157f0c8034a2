package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.akkaetcd.server.Flags.FlagException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagsTest {
  private static ServerConfig config(Map<String, String> env, String... args) {
    return ServerConfig.fromFlags(Flags.parse(args, env));
  }

  @Test
  void noFlagsGiveEtcdDefaults() {
    ServerConfig c = config(Map.of());
    assertEquals("default", c.name());
    assertEquals(Path.of("default.etcd"), c.dataDir());
    assertEquals("http://localhost:2379", c.listenClientUrls().get(0).toString());
    assertEquals(1572864, c.maxRequestBytes());
    assertEquals(128, c.maxTxnOps());
    assertEquals(ServerConfig.DEFAULT_QUOTA_BYTES, c.quotaBackendBytes());
    assertEquals(Duration.ofMillis(100), c.heartbeatInterval());
    assertEquals(10, c.electionTicks());
    assertEquals(100000, c.snapshotCount());
  }

  @Test
  void bothFlagFormsAndDashesAreAccepted() {
    ServerConfig c = config(Map.of(), "--name=n1", "-max-txn-ops", "7", "--initial-cluster", "n1=http://127.0.0.1:9");
    assertEquals("n1", c.name());
    assertEquals(Path.of("n1.etcd"), c.dataDir());
    assertEquals(7, c.maxTxnOps());
  }

  @Test
  void environmentVariablesApplyAndFlagsWin() {
    Map<String, String> env = Map.of("ETCD_MAX_TXN_OPS", "9", "ETCD_DATA_DIR", "/tmp/x");
    assertEquals(9, config(env).maxTxnOps());
    assertEquals(Path.of("/tmp/x"), config(env).dataDir());
    assertEquals(3, config(env, "--max-txn-ops=3").maxTxnOps());
  }

  @Test
  void badFlagsAreRefusedWithEtcdsWords() {
    FlagException unknown = assertThrows(FlagException.class, () -> config(Map.of(), "--no-such-flag"));
    assertEquals("flag provided but not defined: -no-such-flag", unknown.getMessage());
    assertThrows(FlagException.class, () -> config(Map.of(), "--max-txn-ops"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--max-txn-ops=x"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--listen-client-urls=localhost:1"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--election-timeout=100"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--name=other"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--auto-compaction-mode=weekly"));
    assertThrows(FlagException.class, () -> config(Map.of(), "--auto-compaction-retention=soon"));
    assertThrows(FlagException.class, () -> config(Map.of(), "stray"));
  }
}
