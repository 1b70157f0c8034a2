package io.akkaetcd.tls;

import io.akkaetcd.errors.StartupException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * etcd's {@code --cipher-suites}: Go's crypto/tls suite names (tlsutil.GetCipherSuite accepts
 * {@code tls.CipherSuites()}, {@code tls.InsecureCipherSuites()} and two short CHACHA20 aliases)
 * turned into JSSE names. JSSE names the TLS 1.2 suites as IANA does, except the old SSL_ aliases.
 */
final class GoCipherSuites {
  private GoCipherSuites() {}

  /** Go name → JSSE name, for every name etcd 3.4 accepts. */
  private static final Map<String, String> JSSE = Map.ofEntries(
      // tls.CipherSuites(): TLS 1.3 (never configurable in Go, always on) ...
      Map.entry("TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"),
      Map.entry("TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384"),
      Map.entry("TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256"),
      // ... and TLS 1.2
      Map.entry("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"),
      Map.entry("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"),
      Map.entry("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
      Map.entry("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
      Map.entry("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
      Map.entry("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
      // tlsutil's aliases
      Map.entry("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
      // tls.InsecureCipherSuites()
      Map.entry("TLS_RSA_WITH_RC4_128_SHA", "SSL_RSA_WITH_RC4_128_SHA"),
      Map.entry("TLS_RSA_WITH_3DES_EDE_CBC_SHA", "SSL_RSA_WITH_3DES_EDE_CBC_SHA"),
      Map.entry("TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"),
      Map.entry("TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA"),
      Map.entry("TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA256"),
      Map.entry("TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"),
      Map.entry("TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA"),
      Map.entry("TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA"),
      Map.entry("TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA"),
      Map.entry("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"),
      Map.entry("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"));

  /** Checks every name as etcd's updateCipherSuites does; the first unknown one fails start-up. */
  static List<String> validate(List<String> goNames) {
    for (String name : goNames) {
      if (!JSSE.containsKey(name)) {
        throw new StartupException("unexpected TLS cipher suite " + GoQuote.q(name));
      }
    }
    return List.copyOf(goNames);
  }

  /**
   * The JSSE names for {@code goNames}, in their order, kept to those {@code supported} by this
   * JVM (RC4 and 3DES are gone from the JDK). TLS 1.3 names are left out: as in Go, the TLS 1.3
   * suites are not restricted (the caller adds all of them).
   */
  static List<String> tls12Suites(List<String> goNames, List<String> supported) {
    List<String> out = new ArrayList<>();
    for (String name : validate(goNames)) {
      String jsse = JSSE.get(name);
      if (!isTls13(jsse) && supported.contains(jsse) && !out.contains(jsse)) {
        out.add(jsse);
      }
    }
    return out;
  }

  static boolean isTls13(String jsseName) {
    return !jsseName.contains("_WITH_");
  }
}
