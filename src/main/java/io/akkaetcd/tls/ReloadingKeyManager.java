package io.akkaetcd.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificate and key of {@code --cert-file}/{@code --key-file}, re-read for each new
 * handshake when the files changed, as etcd's {@code GetCertificate} reloads them on every TLS
 * connection (issue #26 item 4). Open connections keep the key they shook hands with.
 *
 * <p>A change is seen through the files' modification time, size and inode; files touched in the
 * last {@link #SETTLE} are compared byte for byte, so a rewrite within one timestamp tick is seen
 * too. A pair that does not load (a rotation half done) leaves the previous one in use, with a
 * warning; etcd would fail those handshakes instead.
 *
 * <p>Each loaded pair has its own alias ("etcd-N"), so a handshake that chose an alias gets that
 * pair's chain and key even if a reload happens in between. Thread-safe.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private static final Logger log = LoggerFactory.getLogger(ReloadingKeyManager.class);
  static final Duration SETTLE = Duration.ofSeconds(2);
  /** Loaded pairs kept for handshakes under way; older ones are dropped. */
  private static final int KEPT = 4;

  private record Loaded(String alias, long generation, List<Object> stamp, byte[] cert, byte[] key, PemFiles.KeyPair pair) {}

  private final Path certFile;
  private final Path keyFile;
  private final AtomicLong generations = new AtomicLong();
  private final Map<String, Loaded> byAlias = new ConcurrentHashMap<>();
  private volatile Loaded current;

  private ReloadingKeyManager(Path certFile, Path keyFile) {
    this.certFile = certFile;
    this.keyFile = keyFile;
  }

  /** Loads the pair now: a pair that does not load at start-up fails it, as etcd's baseConfig does. */
  static ReloadingKeyManager load(Path certFile, Path keyFile) throws IOException {
    ReloadingKeyManager km = new ReloadingKeyManager(certFile, keyFile);
    List<Object> stamp = km.stamp();
    km.install(stamp, PemFiles.read(certFile), PemFiles.read(keyFile));
    return km;
  }

  /** The pair new handshakes use, after re-reading the files if they changed. */
  PemFiles.KeyPair current() {
    return refresh().pair();
  }

  private Loaded refresh() {
    Loaded loaded = current;
    try {
      List<Object> stamp = stamp();
      if (stamp.equals(loaded.stamp()) && !recentlyTouched(stamp)) {
        return loaded;
      }
      byte[] cert = PemFiles.read(certFile);
      byte[] key = PemFiles.read(keyFile);
      if (Arrays.equals(cert, loaded.cert()) && Arrays.equals(key, loaded.key())) {
        return loaded;
      }
      return install(stamp, cert, key);
    } catch (IOException e) {
      log.warn("failed to reload certificate (cert-file {}, key-file {}), keeping the loaded one: {}", certFile, keyFile,
          e.getMessage());
      return loaded;
    }
  }

  private synchronized Loaded install(List<Object> stamp, byte[] cert, byte[] key) throws IOException {
    Loaded before = current;
    if (before != null && Arrays.equals(cert, before.cert()) && Arrays.equals(key, before.key())) {
      return before;
    }
    long generation = generations.incrementAndGet();
    Loaded loaded = new Loaded("etcd-" + generation, generation, stamp, cert, key, PemFiles.keyPair(cert, key));
    byAlias.put(loaded.alias(), loaded);
    byAlias.values().removeIf(l -> l.generation() <= generation - KEPT);
    current = loaded;
    if (before != null) {
      log.info("reloaded certificate {} (key {})", certFile, keyFile);
    }
    return loaded;
  }

  private List<Object> stamp() throws IOException {
    return List.of(attributes(certFile), attributes(keyFile));
  }

  private static List<Object> attributes(Path file) throws IOException {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      return Arrays.asList(a.lastModifiedTime().toInstant(), a.size(), a.fileKey());
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IOException("open " + file + ": no such file or directory", e);
    }
  }

  private static boolean recentlyTouched(List<Object> stamp) {
    Instant settled = Instant.now().minus(SETTLE);
    return stamp.stream().map(s -> (Instant) ((List<?>) s).get(0)).anyMatch(t -> t.isAfter(settled));
  }

  private String aliasFor(String keyType) {
    Loaded loaded = refresh();
    return Objects.equals(KeyTypes.of(loaded.pair().key()), keyType) ? loaded.alias() : null;
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return chooseClientAlias(keyTypes, issuers, null);
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    // etcd's GetClientCertificate: the peer dialer always offers its certificate.
    Loaded loaded = refresh();
    String type = KeyTypes.of(loaded.pair().key());
    return keyTypes == null || Arrays.asList(keyTypes).contains(type) ? loaded.alias() : null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    String alias = aliasFor(keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return getServerAliases(keyType, issuers);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Loaded loaded = alias == null ? null : byAlias.get(alias);
    return loaded == null ? null : loaded.pair().chain().toArray(X509Certificate[]::new);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Loaded loaded = alias == null ? null : byAlias.get(alias);
    return loaded == null ? null : loaded.pair().key();
  }
}
