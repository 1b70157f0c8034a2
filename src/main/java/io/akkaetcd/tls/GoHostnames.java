package io.akkaetcd.tls;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Go's {@code x509.Certificate.VerifyHostname} for {@code --*-cert-allowed-hostname}: an IP
 * literal matches an IP SAN; a name matches a DNS SAN, case-insensitively, where "*." stands for
 * one whole leftmost label. The Common Name is not consulted (Go 1.15+).
 */
public final class GoHostnames {
  private GoHostnames() {}

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final int DNS = 2;
  private static final int IP = 7;

  static boolean verify(X509Certificate cert, String host) {
    String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (isIpLiteral(h)) {
      InetAddress want = literal(h);
      return want != null && sans(cert, IP).stream().map(GoHostnames::literal).anyMatch(want::equals);
    }
    String name = h.toLowerCase(Locale.ROOT);
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    for (String pattern : sans(cert, DNS)) {
      if (matches(pattern.toLowerCase(Locale.ROOT), name)) {
        return true;
      }
    }
    return false;
  }

  /** An IPv4 or IPv6 address written out (no name to resolve), as Go's net.ParseIP sees one. */
  public static boolean isIpLiteral(String h) {
    return h.contains(":") || IPV4.matcher(h).matches();
  }

  private static boolean matches(String pattern, String name) {
    if (pattern.startsWith("*.")) {
      int dot = name.indexOf('.');
      return dot > 0 && name.substring(dot).equals(pattern.substring(1));
    }
    return pattern.equals(name);
  }

  /** A literal address, never a lookup (getByName resolves nothing for a literal). */
  private static InetAddress literal(String s) {
    if (!isIpLiteral(s)) {
      return null;
    }
    try {
      return InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  private static List<String> sans(X509Certificate cert, int type) {
    List<String> out = new ArrayList<>();
    try {
      Collection<List<?>> all = cert.getSubjectAlternativeNames();
      if (all != null) {
        for (List<?> san : all) {
          if (((Integer) san.get(0)) == type && san.get(1) instanceof String s) {
            out.add(s);
          }
        }
      }
    } catch (CertificateParsingException e) {
      // an unreadable SAN extension matches nothing
    }
    return out;
  }
}
