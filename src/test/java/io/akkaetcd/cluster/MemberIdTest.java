package io.akkaetcd.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemberIdTest {
  /** Ids real etcd 3.4.23 reported for a member named x with this peer URL and the default token. */
  @Test
  void derivesTheIdsEtcdDerives() {
    MemberId id = MemberId.of(List.of(URI.create("http://127.0.0.1:23801")), "etcd-cluster");
    assertEquals("bdae9bbc11dd390d", id.toString());
    assertEquals(Long.parseUnsignedLong("15118495548433857066"), MemberId.clusterId(List.of(id)));
  }

  @Test
  void peerUrlOrderDoesNotMatter() {
    URI a = URI.create("http://127.0.0.1:1");
    URI b = URI.create("http://127.0.0.1:2");
    assertEquals(MemberId.of(List.of(a, b), "t"), MemberId.of(List.of(b, a), "t"));
  }

  @Test
  void tokenChangesTheId() {
    URI a = URI.create("http://127.0.0.1:1");
    assert !MemberId.of(List.of(a), "t1").equals(MemberId.of(List.of(a), "t2"));
  }
}
