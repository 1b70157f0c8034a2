package io.akkaetcd.server;

import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;

/**
 * etcd's checks of the listen URLs, made before the data directory is created or anything else
 * starts, so a member that cannot serve fails at once and leaves nothing behind. As etcd's
 * {@code StartEtcd}: peer URLs first, then client URLs; for each, an {@code https} URL without
 * certificates is refused, then the address must be free to bind. The sockets are bound and
 * closed again (Akka binds them itself moments later).
 */
public final class ListenUrls {
  private ListenUrls() {}

  /**
   * The launcher's early check, before logging and the Akka config are set up, so that a port
   * clash is reported within a second: {@link #check} itself when no listen URL and no TLS flag
   * asks for TLS (then it resolves nothing and logs nothing, so the error and its order are the
   * full check's); otherwise nothing, and the full check runs as the member starts.
   */
  public static void checkEarly(ServerConfig config) {
    boolean plain = config.clientTls().empty() && !config.clientTls().autoTls() && !config.clientTls().clientCertAuth()
        && java.util.stream.Stream.of(config.listenPeerUrls(), config.listenClientUrls(), config.metrics().listenUrls())
            .flatMap(List::stream).noneMatch(ClientTls::isTls);
    if (plain) {
      check(config);
    }
  }

  /**
   * Throws etcd's start-up error for the first listen URL this member cannot serve; returns the
   * client listeners' TLS (made and checked between the peer and the client listeners, as etcd's
   * ClientSelfCert).
   */
  static ClientTls check(ServerConfig config) {
    boolean unixPeers = config.listenPeerUrls().stream().anyMatch(ListenUrls::isUnix)
        || config.initialCluster().values().stream().flatMap(List::stream).anyMatch(ListenUrls::isUnix);
    if (unixPeers && (config.initialCluster().size() > 1 || config.initialClusterState().equals("existing"))) {
      // Akka's peer transport (Artery) speaks TCP only; a member alone needs no peer transport.
      throw new StartupException("unix:// peer URLs are served only by a member alone: akka-etcd's peer transport"
          + " is TCP (use http:// peer URLs for a cluster)");
    }
    for (URI url : config.listenPeerUrls()) {
      if (isUnix(url)) {
        continue; // a member alone never listens for peers
      }
      if (ClientTls.isTls(url) && !config.peerTls().autoTls()) {
        // etcd's transport.NewListener with an empty peer TLS info (--peer-auto-tls makes one).
        config.peerTls().checkPeerUrl(url.toString(), hostPort(url));
      }
      checkBindable(url);
    }
    ClientTls tls = ClientTls.resolve(config);
    for (URI url : config.listenClientUrls()) {
      checkBindable(url);
    }
    for (URI url : config.metrics().listenUrls()) {
      checkBindable(url);
    }
    return tls;
  }

  private static boolean isUnix(URI url) {
    return url.getScheme().equals("unix");
  }

  private static String hostPort(URI url) {
    return url.getHost() + ":" + url.getPort();
  }

  /** Binds and closes the URL's address; fails with Go's net.Listen error text as etcd prints it. */
  private static void checkBindable(URI url) {
    InetSocketAddress address;
    try {
      address = new InetSocketAddress(InetAddress.getByName(url.getHost()), url.getPort());
    } catch (UnknownHostException e) {
      throw new StartupException("listen tcp: lookup " + url.getHost() + ": no such host");
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(address);
    } catch (IOException e) {
      throw bindFailed(address, e);
    }
  }

  /** Go's net.Listen error for {@code address}, from the bind failure somewhere in {@code e}'s causes. */
  static StartupException bindFailed(InetSocketAddress address, Throwable e) {
    Throwable cause = e;
    while (!(cause instanceof java.net.BindException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return new StartupException("listen tcp " + goAddress(address) + ": bind: " + goErrno(cause.getMessage()), e);
  }

  /** Go's host:port, IPv6 in brackets. */
  private static String goAddress(InetSocketAddress a) {
    String host = a.isUnresolved() ? a.getHostString() : a.getAddress().getHostAddress();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  /** Go prints the C library's error text in lower case ("address already in use"). */
  private static String goErrno(String message) {
    String m = message == null ? "unknown error" : message;
    int bracket = m.indexOf("] "); // Java sometimes prefixes the address: "[/1.2.3.4:5] Address ..."
    if (m.startsWith("[") && bracket > 0) {
      m = m.substring(bracket + 2);
    }
    return m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
  }
}
