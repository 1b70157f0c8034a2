package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * bcrypt hashing and checking of passwords ($2a$, as Go's x/crypto/bcrypt writes them), run on an
 * executor of its own: at cost 10 one call takes tens of milliseconds, so it must never run on
 * the Raft member, the applier or a transport thread. UserAdd and UserChangePassword hash before
 * the request is proposed (etcd 3.5's order; the entry carries the hash), Authenticate checks
 * before proposing (etcd's CheckPassword). Thread-safe.
 */
public final class Passwords {
  /** bcrypt reads at most 72 bytes of a password; Go's (2022) bcrypt ignores the rest too. */
  static final int MAX_BYTES = 72;

  private final Executor executor;
  private final int cost;
  private final SecureRandom random;

  /** {@code costFlag} is --bcrypt-cost as given ({@link BcryptCost#of} applies etcd's rule). */
  public Passwords(Executor executor, int costFlag, SecureRandom random) {
    this.executor = executor;
    this.cost = BcryptCost.of(costFlag);
    this.random = random;
  }

  public int cost() {
    return cost;
  }

  /** The bcrypt hash of the password, made on the executor. */
  public CompletionStage<ByteString> hash(String password) {
    return CompletableFuture.supplyAsync(() -> hashNow(password), executor);
  }

  /** Whether the password matches the stored hash, checked on the executor. */
  public CompletionStage<Boolean> check(ByteString hash, String password) {
    return CompletableFuture.supplyAsync(() -> checkNow(hash, password), executor);
  }

  ByteString hashNow(String password) {
    byte[] salt = new byte[16];
    synchronized (random) {
      random.nextBytes(salt);
    }
    String hash = Bcrypt.generate(bytes(password), salt, cost);
    return ByteString.copyFromUtf8(hash);
  }

  /** A malformed stored hash (or none, for a no-password user) never matches. */
  static boolean checkNow(ByteString hash, String password) {
    if (hash.isEmpty()) {
      return false;
    }
    return Bcrypt.check(hash.toStringUtf8(), bytes(password));
  }

  private static byte[] bytes(String password) {
    byte[] utf8 = password.getBytes(StandardCharsets.UTF_8);
    return utf8.length > MAX_BYTES ? Arrays.copyOf(utf8, MAX_BYTES) : utf8;
  }

  /**
   * Bouncy Castle's bcrypt, in a class of its own: its jar is signed and verified when first read
   * (hundreds of milliseconds), so a member that hashes no password never loads it (issue #32).
   * Checks go to the system's libcrypt first where it may decide ({@link SystemBcrypt}).
   */
  private static final class Bcrypt {
    private static final SystemBcrypt SYSTEM = SystemBcrypt.load();

    static String generate(byte[] password, byte[] salt, int cost) {
      return OpenBSDBCrypt.generate("2a", password, salt, cost);
    }

    static boolean check(String hash, byte[] password) {
      Boolean system = SYSTEM == null ? null : SYSTEM.check(hash, password);
      if (system != null) {
        return system;
      }
      try {
        return OpenBSDBCrypt.checkPassword(hash, password);
      } catch (IllegalArgumentException | DataLengthException e) {
        return false;
      }
    }
  }
}
