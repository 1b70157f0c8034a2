package io.akkaetcd.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/monitoring.md lists every metric family as {@link MetricsDoc} generates the table. */
class MetricsDocTest {
  private static final Path DOC = Path.of("docs/monitoring.md");

  @Test
  void docsListEveryFamilyAsTheRegistryHasIt() throws IOException {
    String doc = Files.readString(DOC);
    assertEquals(MetricsDoc.replaceTable(doc), doc, "docs/monitoring.md's metrics table is stale: run "
        + "java -cp 'target/classes:target/lib/*' io.akkaetcd.metrics.MetricsDoc docs/monitoring.md");
  }

  @Test
  void tableHasEtcdsTypesAndLabelsAndOurs() {
    String table = MetricsDoc.markdown();
    assertTrue(table.contains("| `etcd_server_proposals_committed_total` | gauge |  | etcd |"), table);
    assertTrue(table.contains("| `etcd_network_peer_round_trip_time_seconds` | histogram | `To` | etcd |"), table);
    assertTrue(table.contains("| `grpc_server_handled_total` | counter | `grpc_code`, `grpc_method`, "
        + "`grpc_service`, `grpc_type` | etcd |"), table);
    assertTrue(table.contains("| `akka_etcd_raft_inbox_depth` | gauge |  | akka-etcd |"), table);
  }
}
