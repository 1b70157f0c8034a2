package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.akkaetcd.server.EtcdServer;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --auto-compaction-mode periodic compacts by itself, through Raft, keeping the retention's history. */
class AutoCompactionTest {
  @TempDir Path tmp;

  @Test
  void periodicRetentionCompactsOnItsOwn() throws Exception {
    int port = Ports.free();
    String url = "http://127.0.0.1:" + port;
    String peer = "http://127.0.0.1:" + Ports.free();
    EtcdServer server = EtcdServer.start(ServerConfig.fromFlags(Flags.parse(new String[] {
        "--name", "a1", "--data-dir", Files.createTempDirectory(tmp, "autocompact").toString(),
        "--listen-client-urls", url, "--advertise-client-urls", url,
        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "a1=" + peer,
        "--auto-compaction-mode", "periodic", "--auto-compaction-retention", "1s"}, Map.of())),
        ConfigFactory.load());
    try (Client client = Client.builder().endpoints(url).build()) {
      Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
      int n = 0;
      // The first compaction (after one period) is to the revision sampled at start, 1; the
      // next, a period later, to the revision of one period before it.
      while (server.store().compactRevision() <= 1 && Instant.now().isBefore(deadline)) {
        client.getKVClient().put(ByteSequence.from("k", StandardCharsets.UTF_8),
            ByteSequence.from("v" + n++, StandardCharsets.UTF_8)).get();
      }
      long compacted = server.store().compactRevision();
      assertTrue(compacted > 1, "compacted by itself to revision " + compacted);
      assertTrue(compacted < server.store().currentRevision(), "the last second of history is kept");
      var hash = client.getMaintenanceClient().hashKV(url, 0).get();
      assertEquals(compacted, hash.getCompacted(), "HashKV reports the compaction");
    } finally {
      server.close();
    }
  }

  @Test
  void revisionModeIsAccepted() throws Exception {
    ServerConfig c = ServerConfig.fromFlags(Flags.parse(new String[] {
        "--auto-compaction-mode", "revision", "--auto-compaction-retention", "1000"}, Map.of()));
    assertEquals("revision", c.autoCompactionMode());
  }
}
