package io.akkaetcd.tls;

import io.akkaetcd.errors.StartupException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * etcd's {@code transport.TLSInfo}: the certificate files and checks of one side (client or
 * peer), as given by etcd's flags. Empty (no cert and no key) means plain text. {@code selfCert}
 * marks the {@code --auto-tls} certificate, which peers dial without verifying (etcd's
 * ClientConfig sets InsecureSkipVerify for it).
 *
 * <p>Invariant: {@code allowedCn} and {@code allowedHostname} are never both set, and every
 * cipher suite name is one Go knows (both checked by the factories, with etcd's errors).
 */
public record TlsInfo(
    Path certFile,
    Path keyFile,
    Path trustedCaFile,
    boolean clientCertAuth,
    Path crlFile,
    String allowedCn,
    String allowedHostname,
    List<String> cipherSuites,
    boolean autoTls,
    boolean selfCert) {

  /** The flags shared by both sides. */
  public static final String CIPHER_SUITES = "cipher-suites";

  public TlsInfo {
    allowedCn = allowedCn == null ? "" : allowedCn;
    allowedHostname = allowedHostname == null ? "" : allowedHostname;
    cipherSuites = GoCipherSuites.validate(cipherSuites == null ? List.of() : cipherSuites);
    if (!allowedCn.isEmpty() && !allowedHostname.isEmpty()) {
      // etcd's baseConfig, reached at start-up when the listeners are built.
      throw new StartupException("AllowedCN and AllowedHostname are mutually exclusive (cn=" + GoQuote.q(allowedCn)
          + ", hostname=" + GoQuote.q(allowedHostname) + ")");
    }
  }

  /** The client side from etcd's flag values (name without dashes → value); absent flags are unset. */
  public static TlsInfo client(Map<String, String> flags) {
    return new TlsInfo(
        path(flags, "cert-file"),
        path(flags, "key-file"),
        path(flags, "trusted-ca-file"),
        bool(flags, "client-cert-auth"),
        path(flags, "client-crl-file"),
        "",
        flags.getOrDefault("client-cert-allowed-hostname", ""),
        suites(flags),
        bool(flags, "auto-tls"),
        false);
  }

  /** The peer side from etcd's flag values; {@code --cipher-suites} applies to both sides. */
  public static TlsInfo peer(Map<String, String> flags) {
    return new TlsInfo(
        path(flags, "peer-cert-file"),
        path(flags, "peer-key-file"),
        path(flags, "peer-trusted-ca-file"),
        bool(flags, "peer-client-cert-auth"),
        path(flags, "peer-crl-file"),
        flags.getOrDefault("peer-cert-allowed-cn", ""),
        flags.getOrDefault("peer-cert-allowed-hostname", ""),
        suites(flags),
        bool(flags, "peer-auto-tls"),
        false);
  }

  /**
   * This peer side as the flag values {@link #peer} reads ({@code PeerSslEngineProvider}'s config
   * block): unset files and settings are left out.
   */
  public Map<String, String> peerFlags() {
    Map<String, String> flags = new java.util.LinkedHashMap<>();
    putPath(flags, "peer-cert-file", certFile);
    putPath(flags, "peer-key-file", keyFile);
    putPath(flags, "peer-trusted-ca-file", trustedCaFile);
    flags.put("peer-client-cert-auth", Boolean.toString(clientCertAuth));
    putPath(flags, "peer-crl-file", crlFile);
    flags.put("peer-cert-allowed-cn", allowedCn);
    flags.put("peer-cert-allowed-hostname", allowedHostname);
    flags.put(CIPHER_SUITES, String.join(",", cipherSuites));
    flags.put("peer-auto-tls", Boolean.toString(autoTls));
    return flags;
  }

  private static void putPath(Map<String, String> flags, String name, Path value) {
    if (value != null) {
      flags.put(name, value.toString());
    }
  }

  /** etcd's {@code TLSInfo.Empty}: no certificate and no key, so nothing to serve TLS with. */
  public boolean empty() {
    return certFile == null && keyFile == null;
  }

  /** Client certificates are required and verified: in 3.4 a trusted CA file alone asks for them. */
  public boolean requiresClientCert() {
    return trustedCaFile != null || clientCertAuth;
  }

  /** etcd's check of an {@code https://} (or {@code unixs://}) client listen URL, as printed at start-up. */
  public void checkClientUrl(String url) {
    if (empty() && (url.startsWith("https://") || url.startsWith("unixs://"))) {
      throw new StartupException("TLS key/cert (--cert-file, --key-file) must be provided for client url " + url
          + " with HTTPS scheme");
    }
  }

  /** etcd's check of an {@code https://} peer listen URL; {@code hostPort} is the bound address. */
  public void checkPeerUrl(String url, String hostPort) {
    if (empty() && url.startsWith("https://")) {
      throw new StartupException("cannot listen on TLS for " + hostPort + ": KeyFile and CertFile are not presented");
    }
  }

  /** The same side with etcd's --auto-tls certificate: only the files and cipher suites remain. */
  TlsInfo selfSigned(Path cert, Path key) {
    return new TlsInfo(cert, key, null, false, null, "", "", cipherSuites, true, true);
  }

  private static Path path(Map<String, String> flags, String name) {
    String value = flags.getOrDefault(name, "");
    return value.isEmpty() ? null : Path.of(value);
  }

  /** Go's strconv.ParseBool, as the flag package reads a boolean flag. */
  private static boolean bool(Map<String, String> flags, String name) {
    String value = flags.getOrDefault(name, "false");
    return switch (value) {
      case "1", "t", "T", "TRUE", "true", "True" -> true;
      case "0", "f", "F", "FALSE", "false", "False", "" -> false;
      default -> throw new StartupException("invalid boolean value " + GoQuote.q(value) + " for -" + name
          + ": parse error");
    };
  }

  /** etcd's StringsValue: comma-separated, empty means Go's defaults. */
  private static List<String> suites(Map<String, String> flags) {
    String value = flags.getOrDefault(CIPHER_SUITES, "");
    return value.isEmpty() ? List.of() : Arrays.asList(value.split(","));
  }

  @Override
  public String toString() {
    // etcd's TLSInfo.String, logged at start-up as "tls-info".
    return "cert = " + orEmpty(certFile) + ", key = " + orEmpty(keyFile) + ", trusted-ca = " + orEmpty(trustedCaFile)
        + ", client-cert-auth = " + clientCertAuth + ", crl-file = " + orEmpty(crlFile);
  }

  private static String orEmpty(Path p) {
    return p == null ? "" : p.toString();
  }
}
