package io.akkaetcd.os;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.slf4j.LoggerFactory;

/**
 * Where leveldbjni's native library is loaded from. Left alone, HawtJNI (leveldbjni's loader)
 * copies the library out of its jar into a new file in {@code java.io.tmpdir} at every start and
 * deletes it only at a normal JVM exit, which a member killed or stopped by SIGTERM does not make:
 * every such start left 735 KB in /tmp for good. Instead the library is copied once per
 * content into {@code ~/.cache/akka-etcd/native/leveldbjni-<sha-256 prefix>/} ({@code
 * $XDG_CACHE_HOME} if set; directories made 0700) and HawtJNI's {@code library.leveldbjni.path}
 * names that directory, so every start loads the same file and copies nothing. A path already set,
 * another platform than 64-bit Linux, or a cache that cannot be written leaves HawtJNI its own way.
 */
public final class NativeLevelDb {
  static final String PATH_PROPERTY = "library.leveldbjni.path";
  /** HawtJNI's resource for 64-bit Linux (Library.getArchSpecifcResourcePath). */
  static final String RESOURCE = "META-INF/native/linux64/libleveldbjni.so";
  private static boolean chosen;

  private NativeLevelDb() {}

  /** Points HawtJNI at the cached copy; call before the first LevelDB is opened. Idempotent. */
  public static synchronized void useCachedCopy() {
    if (chosen) {
      return;
    }
    chosen = true;
    if (System.getProperty(PATH_PROPERTY) != null || !linux64()) {
      return;
    }
    Path base = cacheBase();
    if (base == null) {
      return;
    }
    try {
      Path dir = install(base.resolve("akka-etcd").resolve("native"), NativeLevelDb.class.getClassLoader());
      if (dir != null) {
        System.setProperty(PATH_PROPERTY, dir.toString());
      }
    } catch (IOException | RuntimeException e) {
      // The logger only here: the launcher calls this before it sets up logging.
      LoggerFactory.getLogger(NativeLevelDb.class).warn("leveldbjni's library is copied to {} at this start: {}", System.getProperty("java.io.tmpdir"), e.toString());
    }
  }

  /**
   * The directory under {@code base} that holds the library as {@code libleveldbjni.so}, named by
   * its content and written first if it is not there yet (whole, by an atomic rename); null when
   * {@code loader} has no such resource.
   */
  static Path install(Path base, ClassLoader loader) throws IOException {
    byte[] library;
    try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return null;
      }
      library = in.readAllBytes();
    }
    Path dir = base.resolve("leveldbjni-" + HexFormat.of().formatHex(sha256(library), 0, 8));
    Path file = dir.resolve(System.mapLibraryName("leveldbjni"));
    if (Files.isRegularFile(file) && Files.size(file) == library.length) {
      return dir;
    }
    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path part = Files.createTempFile(dir, "libleveldbjni", ".part");
    try {
      Files.write(part, library);
      Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(part);
    }
    return dir;
  }

  private static Path cacheBase() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isEmpty()) {
      return Path.of(xdg);
    }
    String home = System.getProperty("user.home");
    return home == null || home.isEmpty() || home.equals("?") ? null : Path.of(home, ".cache");
  }

  private static boolean linux64() {
    return System.getProperty("os.name", "").startsWith("Linux") && "64".equals(System.getProperty("sun.arch.data.model"))
        && "amd64".equals(System.getProperty("os.arch"));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
