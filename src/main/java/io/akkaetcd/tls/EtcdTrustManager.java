package io.akkaetcd.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.function.Predicate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * etcd's checks of the other side's certificate, in etcd's order: the chain verifies against
 * the trusted CA file (or the system's CAs without one); on a server, no certificate of the
 * presented chain is in the CRL file; then the leaf passes the allowed CN or hostname
 * ("client certificate authentication failed", from etcd's VerifyPeerCertificate, on both sides).
 *
 * <p>The CRL file is read at each full handshake, as etcd's checkCRL reads it per connection, so
 * a new CRL applies to new connections. Go checks the CRL after the handshake and then closes
 * the connection; here the handshake itself fails. Thread-safe.
 */
final class EtcdTrustManager extends X509ExtendedTrustManager {
  static final String AUTH_FAILED = "client certificate authentication failed";

  /** Null for a peer dialing an {@code --peer-auto-tls} member: etcd skips verification then. */
  private final X509ExtendedTrustManager pkix;
  private final Path crlFile;
  private final Predicate<X509Certificate> allowed;
  private volatile Crl crl;

  private record Crl(byte[] bytes, X509CRL list) {}

  private EtcdTrustManager(X509ExtendedTrustManager pkix, Path crlFile, Predicate<X509Certificate> allowed) {
    this.pkix = pkix;
    this.crlFile = crlFile;
    this.allowed = allowed;
  }

  /** The checks {@code info} asks for; {@code insecure} skips chain verification (self cert dialing). */
  static EtcdTrustManager of(TlsInfo info, boolean insecure) throws IOException {
    X509ExtendedTrustManager pkix = insecure ? null : pkix(info.trustedCaFile());
    Predicate<X509Certificate> allowed = null;
    if (!info.allowedCn().isEmpty()) {
      allowed = cert -> CertIdentity.commonName(cert).equals(info.allowedCn());
    } else if (!info.allowedHostname().isEmpty()) {
      allowed = cert -> GoHostnames.verify(cert, info.allowedHostname());
    }
    return new EtcdTrustManager(pkix, info.crlFile(), allowed);
  }

  private static X509ExtendedTrustManager pkix(Path caFile) throws IOException {
    try {
      KeyStore roots = null;
      if (caFile != null) {
        roots = KeyStore.getInstance(KeyStore.getDefaultType());
        roots.load(null, null);
        int i = 0;
        for (X509Certificate ca : PemFiles.caBundle(caFile)) {
          roots.setCertificateEntry("ca-" + i++, ca);
        }
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(roots); // null: the JVM's CAs, as Go falls back to the system pool
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new IOException("no X509 trust manager in " + tmf.getProvider());
    } catch (GeneralSecurityException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  // ---- server side: the client's certificate ----

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    if (pkix != null) {
      pkix.checkClientTrusted(chain, authType, engine);
    }
    afterVerify(chain, true);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    if (pkix != null) {
      pkix.checkClientTrusted(chain, authType, socket);
    }
    afterVerify(chain, true);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    if (pkix != null) {
      pkix.checkClientTrusted(chain, authType);
    }
    afterVerify(chain, true);
  }

  // ---- client (peer dialer) side: the server's certificate; the engine's parameters say whether to check its name ----

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    if (pkix != null) {
      pkix.checkServerTrusted(chain, authType, engine);
    }
    afterVerify(chain, false);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    if (pkix != null) {
      pkix.checkServerTrusted(chain, authType, socket);
    }
    afterVerify(chain, false);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    if (pkix != null) {
      pkix.checkServerTrusted(chain, authType);
    }
    afterVerify(chain, false);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return pkix == null ? new X509Certificate[0] : pkix.getAcceptedIssuers();
  }

  private void afterVerify(X509Certificate[] chain, boolean server) throws CertificateException {
    if (server && crlFile != null) {
      checkCrl(chain);
    }
    // Go hands VerifyPeerCertificate no verified chain when verification is skipped.
    if (allowed != null && (pkix == null || chain.length == 0 || !allowed.test(chain[0]))) {
      throw new CertificateException(AUTH_FAILED);
    }
  }

  /** etcd's checkCRL: any certificate of the presented chain whose serial the CRL lists is refused. */
  private void checkCrl(X509Certificate[] chain) throws CertificateException {
    X509CRL list = crl();
    for (X509Certificate cert : chain) {
      X509CRLEntry revoked = list.getRevokedCertificate(cert.getSerialNumber());
      if (revoked != null) {
        throw new CertificateException("transport: certificate serial " + goHex(cert.getSerialNumber()) + " revoked");
      }
    }
  }

  private X509CRL crl() throws CertificateException {
    try {
      byte[] bytes = PemFiles.read(crlFile);
      Crl cached = crl;
      if (cached != null && Arrays.equals(cached.bytes(), bytes)) {
        return cached.list();
      }
      Crl fresh = new Crl(bytes, PemFiles.crl(bytes));
      crl = fresh;
      return fresh.list();
    } catch (IOException e) {
      throw new CertificateException(e.getMessage(), e);
    }
  }

  /** Go's {@code %x} of big.Int.Bytes(): lower-case hex of the magnitude, whole bytes. */
  private static String goHex(BigInteger serial) {
    String hex = serial.abs().toString(16);
    return hex.length() % 2 == 1 ? "0" + hex : hex;
  }
}
