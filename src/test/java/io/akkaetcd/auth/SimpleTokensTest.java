package io.akkaetcd.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SimpleTokensTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final SimpleTokens tokens = new SimpleTokens(Duration.ofSeconds(300), now::get, new SecureRandom());

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void formatIsSixteenLettersDotIndex() {
    String prefix = tokens.tokenPrefix();
    assertTrue(prefix.matches("[a-zA-Z]{16}"), prefix);
    tokens.enable();
    assertEquals(prefix + ".9", tokens.assign("alice", 5, prefix, 9));
    assertEquals(9, tokens.requiredIndex(prefix + ".9"));
    assertEquals(-1, tokens.requiredIndex("abc"));
    assertEquals(-1, tokens.requiredIndex("a.b.9"));
    assertEquals(-1, tokens.requiredIndex("abc.x"));
  }

  @Test
  void tokenStandsForItsUserAtTheStoresRevision() {
    tokens.enable();
    String t = tokens.assign("alice", 5, "aaaaaaaaaaaaaaaa", 9);
    assertEquals(Optional.of(new AuthInfo("alice", 7)), tokens.info(t, 7));
    assertEquals(Optional.empty(), tokens.info("bbbbbbbbbbbbbbbb.9", 7));
  }

  @Test
  void ttlSlidesWithEachUseAndThenExpires() {
    tokens.enable();
    String t = tokens.assign("alice", 1, "aaaaaaaaaaaaaaaa", 3);
    advance(Duration.ofSeconds(299));
    assertTrue(tokens.info(t, 1).isPresent()); // renews to 300 s from now
    advance(Duration.ofSeconds(299));
    assertTrue(tokens.info(t, 1).isPresent());
    advance(Duration.ofSeconds(301));
    assertEquals(Optional.empty(), tokens.info(t, 1));
    assertEquals(0, tokens.size());
  }

  @Test
  void expireForgetsOnlyExpiredTokens() {
    tokens.enable();
    tokens.assign("a", 1, "aaaaaaaaaaaaaaaa", 3);
    advance(Duration.ofSeconds(200));
    String fresh = tokens.assign("b", 1, "bbbbbbbbbbbbbbbb", 4);
    advance(Duration.ofSeconds(150));
    tokens.expire();
    assertEquals(1, tokens.size());
    assertTrue(tokens.info(fresh, 1).isPresent());
  }

  @Test
  void invalidatedPerUserAndAllOnDisable() {
    tokens.enable();
    String a1 = tokens.assign("alice", 1, "aaaaaaaaaaaaaaaa", 3);
    String a2 = tokens.assign("alice", 1, "cccccccccccccccc", 4);
    String b = tokens.assign("bob", 1, "bbbbbbbbbbbbbbbb", 5);
    tokens.invalidateUser("alice");
    assertEquals(Optional.empty(), tokens.info(a1, 1));
    assertEquals(Optional.empty(), tokens.info(a2, 1));
    assertTrue(tokens.info(b, 1).isPresent());
    tokens.disable();
    assertEquals(Optional.empty(), tokens.info(b, 1));
    tokens.assign("bob", 1, "dddddddddddddddd", 6); // made but not kept while auth is off
    assertEquals(0, tokens.size());
  }

  @Test
  void nonPositiveTtlMeansTheDefault() {
    SimpleTokens t = new SimpleTokens(Duration.ZERO, now::get, new SecureRandom());
    t.enable();
    String token = t.assign("a", 1, "aaaaaaaaaaaaaaaa", 1);
    advance(Duration.ofSeconds(300));
    assertTrue(t.info(token, 1).isPresent());
    advance(Duration.ofSeconds(301));
    assertEquals(Optional.empty(), t.info(token, 1));
  }
}
