package io.akkaetcd.server;

import io.akkaetcd.errors.StartupException;
import io.akkaetcd.tls.GoHostnames;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * etcd's advertiseMatchesCluster, checked when a member starts on an empty data directory: its
 * --initial-advertise-peer-urls must be the URLs --initial-cluster gives its name, compared sorted
 * after host names are resolved (not "localhost", not IP literals), as etcd's URLStringsEqual.
 * Otherwise the other members would dial a URL this member does not advertise.
 */
final class AdvertisedPeerUrls {
  private AdvertisedPeerUrls() {}

  /** Throws etcd's start-up error if the two lists differ. */
  static void checkMatchesCluster(ServerConfig config) {
    List<String> inCluster = sorted(config.initialCluster().getOrDefault(config.name(), List.of()));
    List<String> advertised = sorted(config.initialAdvertisePeerUrls());
    String why = difference(advertised, inCluster);
    if (why != null) {
      throw new StartupException("--initial-cluster has " + inCluster.stream().map(u -> config.name() + "=" + u)
          .collect(Collectors.joining(",")) + " but missing from --initial-advertise-peer-urls="
          + String.join(",", advertised) + " (" + why + ")");
    }
  }

  /** Null if equal; otherwise Go's words for the first difference. */
  static String difference(List<String> a, List<String> b) {
    if (a.equals(b)) {
      return null;
    }
    if (a.size() != b.size()) {
      return "len(" + goQuoted(a) + ") != len(" + goQuoted(b) + ")";
    }
    List<String> ra = a.stream().map(AdvertisedPeerUrls::resolved).sorted().toList();
    List<String> rb = b.stream().map(AdvertisedPeerUrls::resolved).sorted().toList();
    for (int i = 0; i < ra.size(); i++) {
      if (!ra.get(i).equals(rb.get(i))) {
        return "resolved urls: \"" + ra.get(i) + "\" != \"" + rb.get(i) + "\"";
      }
    }
    return null;
  }

  /** The URL with its host resolved to an address, unless it is "localhost" or already one. */
  private static String resolved(String url) {
    URI u = URI.create(url);
    String host = u.getHost();
    if (host == null || host.equals("localhost") || GoHostnames.isIpLiteral(host)) {
      return url;
    }
    try {
      InetAddress address = InetAddress.getByName(host);
      String literal = address.getHostAddress();
      String withPort = (literal.contains(":") ? "[" + literal + "]" : literal) + (u.getPort() < 0 ? "" : ":" + u.getPort());
      return u.getScheme() + "://" + withPort + (u.getRawPath() == null ? "" : u.getRawPath());
    } catch (UnknownHostException e) {
      return url; // unresolved: compared as written
    }
  }

  private static List<String> sorted(List<URI> urls) {
    return urls.stream().map(URI::toString).sorted().toList();
  }

  /** Go's %q of a []string: ["a" "b"]. */
  private static String goQuoted(List<String> l) {
    return l.stream().map(x -> "\"" + x + "\"").collect(Collectors.joining(" ", "[", "]"));
  }
}
