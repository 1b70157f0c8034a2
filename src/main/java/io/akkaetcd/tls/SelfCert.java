package io.akkaetcd.tls;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's {@code --auto-tls}/{@code --peer-auto-tls} ({@code transport.SelfCert}): a self-signed
 * ECDSA P-521 certificate for the listen hosts (O=etcd, one year, server auth, IP hosts as IP
 * SANs), kept as cert.pem and key.pem (SEC 1, mode 0600) under {@code <data-dir>/fixtures/client}
 * or {@code fixtures/peer}, and reused as long as both files exist. Bouncy Castle (signed jars,
 * verified when first read) is touched only when a certificate is made ({@link SelfCertIssuer}),
 * so a start without auto TLS does not pay for it (issue #32).
 */
public final class SelfCert {
  private static final Logger log = LoggerFactory.getLogger(SelfCert.class);
  static final Duration VALIDITY = Duration.ofDays(365);

  private SelfCert() {}

  /**
   * etcd's ClientSelfCert/PeerSelfCert: {@code info} itself unless auto TLS is on and no
   * certificate was given; otherwise the self-signed certificate for {@code listenUrls}' hosts in
   * {@code <dataDir>/fixtures/<side>} ("client" or "peer").
   */
  public static TlsInfo apply(TlsInfo info, Path dataDir, String side, List<URI> listenUrls) {
    if (!info.autoTls()) {
      return info;
    }
    if (!info.empty()) {
      log.warn("ignoring {} auto TLS since certs given", side);
      return info;
    }
    List<String> hosts = new ArrayList<>();
    for (URI url : listenUrls) {
      hosts.add(url.getHost());
    }
    Path dir = dataDir.resolve("fixtures").resolve(side);
    try {
      return ensure(dir, hosts, info);
    } catch (IOException | GeneralSecurityException e) {
      throw new io.akkaetcd.errors.StartupException("could not get certs (" + e.getMessage() + ")", e);
    }
  }

  private static TlsInfo ensure(Path dir, List<String> hosts, TlsInfo info)
      throws IOException, GeneralSecurityException {
    Files.createDirectories(dir);
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    if (!Files.exists(cert) || !Files.exists(key)) {
      SelfCertIssuer.generate(cert, key, hosts);
    }
    return info.selfSigned(cert, key);
  }

}
