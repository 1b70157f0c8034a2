package io.akkaetcd.auth;

import static io.akkaetcd.auth.AuthStateTest.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PasswordsTest {
  @Test
  void costRulesOfEtcd() {
    assertEquals(10, BcryptCost.of(10));
    assertEquals(4, BcryptCost.of(4));
    assertEquals(31, BcryptCost.of(31));
    assertEquals(10, BcryptCost.of(3));
    assertEquals(10, BcryptCost.of(32));
    assertEquals(10, BcryptCost.of(0));
  }

  @Test
  void hashesAs2aAndChecksOnItsExecutor() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "bcrypt-test"));
    try {
      Passwords passwords = new Passwords(pool, 4, new SecureRandom());
      ByteString hash = passwords.hash("secret").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(hash.toStringUtf8().startsWith("$2a$04$"), hash.toStringUtf8());
      assertEquals(60, hash.size());
      assertTrue(passwords.check(hash, "secret").toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertFalse(passwords.check(hash, "Secret").toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertNotEquals(hash, passwords.hash("secret").toCompletableFuture().get(10, TimeUnit.SECONDS));
      String thread = java.util.concurrent.CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), pool)
          .get(10, TimeUnit.SECONDS);
      assertEquals("bcrypt-test", thread);
      assertEquals(10, new Passwords(pool, 99, new SecureRandom()).cost());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void checksHashesMadeElsewhere() {
    // OpenBSD's test vector ("U*U", cost 5), as Go's bcrypt also accepts it
    assertTrue(Passwords.checkNow(b("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"), "U*U"));
    assertFalse(Passwords.checkNow(b("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"), "U*V"));
    assertFalse(Passwords.checkNow(ByteString.EMPTY, ""));
    assertFalse(Passwords.checkNow(b("not a hash"), "x"));
  }

  @Test
  void onlyTheFirst72BytesCount() {
    Passwords passwords = new Passwords(Runnable::run, 4, new SecureRandom());
    String long72 = "p".repeat(72);
    ByteString hash = passwords.hashNow(long72 + "tail");
    assertTrue(Passwords.checkNow(hash, long72));
    assertTrue(Passwords.checkNow(hash, long72 + "other"));
  }

  @Test
  void theSystemLibraryAgreesWithBouncyCastleWhereItDecides() {
    SystemBcrypt system = SystemBcrypt.load();
    // Debian's essential perl-base depends on libcrypt1, so a member there always has it
    assertTrue(system != null, "libcrypt's bcrypt did not load or failed its self-test");
    Passwords passwords = new Passwords(Runnable::run, 4, new SecureRandom());
    for (String password : new String[] {"secret", "", " ", "p".repeat(72), "p".repeat(80), "\u0001ctl"}) {
      String hash = passwords.hashNow(password).toStringUtf8();
      byte[] bytes = password.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      byte[] cut = java.util.Arrays.copyOf(bytes, Math.min(bytes.length, Passwords.MAX_BYTES));
      assertEquals(Boolean.TRUE, system.check(hash, cut), password);
      byte[] other = java.util.Arrays.copyOf(("x" + password).getBytes(), Math.min(bytes.length + 1, Passwords.MAX_BYTES));
      assertEquals(Boolean.FALSE, system.check(hash, other), password);
      assertEquals(Boolean.FALSE, system.check(hash.replace("$2a$04$", "$2b$05$"), cut), password);
    }
    // not its to decide: 8-bit bytes and NUL go to Bouncy Castle, as do other prefixes
    String umlaut = passwords.hashNow("p\u00e4ss").toStringUtf8();
    assertEquals(null, system.check(umlaut, "p\u00e4ss".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertTrue(Passwords.checkNow(ByteString.copyFromUtf8(umlaut), "p\u00e4ss"));
    assertEquals(null, system.check(umlaut, new byte[] {'a', 0, 'b'}));
    assertEquals(null, system.check("$2y$04$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "x".getBytes()));
    assertEquals(Boolean.FALSE, system.check("$2a$04$short", "x".getBytes()));
  }
}
