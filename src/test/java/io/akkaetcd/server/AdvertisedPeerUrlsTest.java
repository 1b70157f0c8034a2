package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class AdvertisedPeerUrlsTest {
  @Test
  void comparedSortedAndResolvedAsEtcdsUrlStringsEqual() {
    assertNull(AdvertisedPeerUrls.difference(List.of("http://10.0.0.2:2380", "http://10.0.0.1:2380"),
        List.of("http://10.0.0.1:2380", "http://10.0.0.2:2380")));
    // "localhost" is never resolved, so it differs from its address, as in etcd 3.4
    assertEquals("resolved urls: \"http://localhost:2380\" != \"http://127.0.0.1:2380\"",
        AdvertisedPeerUrls.difference(List.of("http://localhost:2380"), List.of("http://127.0.0.1:2380")));
    assertEquals("len([\"http://a:1\" \"http://b:1\"]) != len([\"http://a:1\"])",
        AdvertisedPeerUrls.difference(List.of("http://a:1", "http://b:1"), List.of("http://a:1")));
  }
}
