package io.akkaetcd.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;

/**
 * bcrypt checks by the system's libcrypt (libxcrypt; Debian's essential perl-base needs it), via jnr-ffi:
 * about 12 % less CPU a check than Bouncy Castle's, and Authenticate is bound by it (issue #27).
 * Used only where both agree by construction: a $2a$/$2b$ hash and a password of printable-range
 * ASCII bytes (no NUL, which ends a C string; no 8-bit byte, where crypt_blowfish's $2a$ guard
 * departs from Go's bcrypt). Anything else, or a library that fails its self-test, is left to
 * Bouncy Castle: {@link #check} answers null.
 */
final class SystemBcrypt {
  /** libxcrypt's {@code struct crypt_data}: 32 KiB, one per thread (crypt_rn is reentrant). */
  private static final int CRYPT_DATA_SIZE = 32768;

  public interface LibCrypt {
    Pointer crypt_rn(@In byte[] phrase, @In byte[] setting, Pointer data, int size);
  }

  private final LibCrypt lib;
  private final ThreadLocal<Pointer> data;

  private SystemBcrypt(LibCrypt lib) {
    this.lib = lib;
    Runtime runtime = Runtime.getRuntime(lib);
    this.data = ThreadLocal.withInitial(() -> Memory.allocateDirect(runtime, CRYPT_DATA_SIZE));
  }

  /** The loaded library, or null when it is missing, fails to load, or fails the self-test. */
  static SystemBcrypt load() {
    if (Boolean.getBoolean("akka-etcd.bcrypt.bouncycastle-only")) {
      return null;
    }
    try {
      SystemBcrypt bcrypt = new SystemBcrypt(LibraryLoader.create(LibCrypt.class).failImmediately().load("crypt"));
      // OpenBSD's vector ("U*U" at cost 5), the one PasswordsTest also checks Bouncy Castle with
      String vector = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
      byte[] good = "U*U".getBytes(StandardCharsets.US_ASCII);
      byte[] bad = "U*V".getBytes(StandardCharsets.US_ASCII);
      return Boolean.TRUE.equals(bcrypt.check(vector, good)) && Boolean.FALSE.equals(bcrypt.check(vector, bad))
          ? bcrypt : null;
    } catch (Throwable e) { // UnsatisfiedLinkError and the like: Bouncy Castle does every check
      return null;
    }
  }

  /** Whether the password matches; null when this library must not decide (see the class). */
  Boolean check(String hash, byte[] password) {
    if (!(hash.startsWith("$2a$") || hash.startsWith("$2b$")) || !plainAscii(password)) {
      return null;
    }
    byte[] stored = hash.getBytes(StandardCharsets.US_ASCII);
    Pointer out = lib.crypt_rn(cString(password), cString(stored), data.get(), CRYPT_DATA_SIZE);
    if (out == null) {
      return false; // a malformed hash never matches, as with Bouncy Castle
    }
    byte[] computed = out.getString(0, 128, StandardCharsets.US_ASCII).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(computed, stored);
  }

  private static boolean plainAscii(byte[] password) {
    for (byte b : password) {
      if (b <= 0) {
        return false;
      }
    }
    return true;
  }

  private static byte[] cString(byte[] bytes) {
    return Arrays.copyOf(bytes, bytes.length + 1);
  }
}
