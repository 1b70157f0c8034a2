package io.akkaetcd.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A member's wait for its own publication, which is what it serves clients after. */
class MemberAttributesTest {
  private static final List<URI> URLS = List.of(URI.create("http://127.0.0.1:23790"));

  @Test
  void aWaitEndsWhenTheExactPublicationIsApplied(@TempDir Path dir) {
    MemberAttributes attributes = MemberAttributes.load(dir);
    CompletableFuture<Void> recorded = attributes.whenRecorded(7, "m4", URLS);
    attributes.publish(8, "m5", URLS);
    attributes.publish(7, "m4", List.of(URI.create("http://127.0.0.1:1")));
    assertFalse(recorded.isDone(), "another member, or other URLs, are not this publication");
    attributes.publish(7, "m4", URLS);
    assertTrue(recorded.isDone());
    // Durable: a restarted member finds it recorded and serves at once.
    assertTrue(MemberAttributes.load(dir).whenRecorded(7, "m4", URLS).isDone());
  }

  @Test
  void aWaitEndsWhenASnapshotHoldsThePublication(@TempDir Path dir) {
    MemberAttributes attributes = MemberAttributes.load(dir);
    CompletableFuture<Void> recorded = attributes.whenRecorded(7, "m4", URLS);
    attributes.restore(Map.of(8L, new MemberAttributes.Published("m5", URLS)));
    assertFalse(recorded.isDone());
    attributes.restore(Map.of(7L, new MemberAttributes.Published("m4", URLS)));
    assertTrue(recorded.isDone());
    assertEquals("m4", attributes.name(7).orElseThrow());
  }

  @Test
  void aPublicationWithoutClientUrlsReadsBack(@TempDir Path dir) {
    MemberAttributes.load(dir).publish(7, "m4", List.of());
    assertEquals(List.of(), MemberAttributes.load(dir).clientUrls(7).orElseThrow());
  }

  @Test
  void aDamagedFileStopsTheStartNamingIt(@TempDir Path dir) throws Exception {
    java.nio.file.Files.writeString(dir.resolve("attributes"), "7 m4 http://127.0.0.1:1\nnonsense\n");
    var e = org.junit.jupiter.api.Assertions.assertThrows(io.akkaetcd.errors.StartupException.class,
        () -> MemberAttributes.load(dir));
    assertTrue(e.getMessage().startsWith(dir.resolve("attributes") + " is damaged: line 2 (\"nonsense\")"),
        e.getMessage());
  }
}
