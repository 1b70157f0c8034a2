package io.akkaetcd.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemberIdentityTest {
  @TempDir Path tmp;

  private static ClusterMembers bootstrap(String peer) {
    return ClusterMembers.bootstrap("n", Map.of("n", List.of(URI.create(peer))), "etcd-cluster", List.of());
  }

  @Test
  void aDataDirKeepsTheIdentityItWasCreatedWith() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "identity");
    ClusterMembers first = MemberIdentity.loadOrRecord(dir, bootstrap("http://127.0.0.1:1"));
    ClusterMembers other = bootstrap("http://127.0.0.1:2");
    assertNotEquals(first.self(), other.self());

    ClusterMembers restarted = MemberIdentity.loadOrRecord(dir, other);
    assertEquals(first.self(), restarted.self());
    assertEquals(first.clusterId(), restarted.clusterId());
    assertEquals(first.self(), restarted.members().get(0).id());
  }
}
