package io.akkaetcd.tls;

import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's {@code tls.Config} for one side, from a {@link TlsInfo}: a JSSE {@link SSLContext} with a
 * {@link ReloadingKeyManager} and an {@link EtcdTrustManager}, and the parameters every engine or
 * socket gets: TLS 1.2 and 1.3 only (etcd 3.4's MinVersion), the {@code --cipher-suites} for TLS
 * 1.2 (TLS 1.3 suites are not configurable, as in Go), and on a server the client certificate
 * rule and ALPN "h2".
 *
 * <p>One context serves all connections of a side, so its session cache (JDK default: 20480
 * sessions, 24 hours; TLS 1.3 session tickets on) lets clients resume instead of doing a full
 * handshake. Immutable; thread-safe.
 */
public final class TlsConfig {
  static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
  static final String H2 = "h2";
  private static final String HTTP11 = "http/1.1";

  private static final Logger log = LoggerFactory.getLogger(TlsConfig.class);

  private final SSLContext context;
  private final SSLParameters parameters;
  private final boolean server;
  private final KeyManager keys;
  private final TrustManager trust;
  /** True when {@code --cipher-suites} restricts TLS 1.2 to the parameters' suites. */
  private final boolean restricted;
  /** A server's native engines; null on a client, or where JSSE serves (see {@link BoringSslServer#create}). */
  private final BoringSslServer boringSsl;

  private TlsConfig(SSLContext context, SSLParameters parameters, boolean server, KeyManager keys, TrustManager trust,
      boolean restricted, BoringSslServer boringSsl) {
    this.context = context;
    this.parameters = parameters;
    this.server = server;
    this.keys = keys;
    this.trust = trust;
    this.restricted = restricted;
    this.boringSsl = boringSsl;
  }

  /** etcd's {@code TLSInfo.ServerConfig}: the listener side. Fails start-up as etcd would. */
  public static TlsConfig server(TlsInfo info) {
    TlsConfig config = build(info, true, false);
    SSLParameters p = config.parameters;
    p.setNeedClientAuth(info.requiresClientCert());
    p.setApplicationProtocols(new String[] {H2});
    return config;
  }

  /**
   * This server side with engines from BoringSSL where it loads, else JSSE's (this); logs which
   * engine serves. Only the client listeners take it: Artery keeps JSSE for peers.
   */
  public TlsConfig withNativeEngines() {
    String[] why = new String[1];
    BoringSslServer boring = server ? BoringSslServer.create(keys, trust, parameters(), restricted, why) : null;
    if (boring == null) {
      log.info("TLS handshakes by the JDK (JSSE): native engine unavailable ({})", server ? why[0] : "client side");
      return this;
    }
    log.info("TLS handshakes by {} (netty-tcnative)", BoringSslServer.version());
    return new TlsConfig(context, parameters, true, keys, trust, restricted, boring);
  }

  /** True when {@link #newEngine} hands out BoringSSL engines. */
  public boolean nativeEngines() {
    return boringSsl != null;
  }

  /**
   * etcd's {@code TLSInfo.ClientConfig}: the peer dialer's side. It offers its own certificate and
   * checks the server's chain and name (the dialed host), except against a self-signed
   * {@code --peer-auto-tls} certificate, which etcd does not verify.
   */
  public static TlsConfig client(TlsInfo info) {
    TlsConfig config = build(info, false, info.selfCert());
    if (!info.selfCert()) {
      config.parameters.setEndpointIdentificationAlgorithm("HTTPS");
    }
    return config;
  }

  private static TlsConfig build(TlsInfo info, boolean server, boolean insecure) {
    if (info.certFile() == null || info.keyFile() == null) {
      throw new StartupException("KeyFile and CertFile must both be present[key: " + orEmpty(info.keyFile())
          + ", cert: " + orEmpty(info.certFile()) + "]");
    }
    try {
      KeyManager keys = ReloadingKeyManager.load(info.certFile(), info.keyFile());
      TrustManager trust = EtcdTrustManager.of(info, insecure);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new KeyManager[] {keys}, new TrustManager[] {trust}, null);
      SSLParameters p = context.getDefaultSSLParameters();
      p.setProtocols(PROTOCOLS);
      if (!info.cipherSuites().isEmpty()) {
        p.setCipherSuites(suites(info.cipherSuites(), context));
        p.setUseCipherSuitesOrder(true);
      }
      return new TlsConfig(context, p, server, keys, trust, !info.cipherSuites().isEmpty(), null);
    } catch (IOException e) {
      throw new StartupException(e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new StartupException("tls: " + e.getMessage(), e);
    }
  }

  /** The TLS 1.2 suites asked for, then every TLS 1.3 suite this JVM enables by default. */
  private static String[] suites(List<String> goNames, SSLContext context) {
    List<String> supported = Arrays.asList(context.getSupportedSSLParameters().getCipherSuites());
    List<String> out = new ArrayList<>(GoCipherSuites.tls12Suites(goNames, supported));
    for (String s : context.getDefaultSSLParameters().getCipherSuites()) {
      if (GoCipherSuites.isTls13(s)) {
        out.add(s);
      }
    }
    return out.toArray(String[]::new);
  }

  public SSLContext context() {
    return context;
  }

  /** A copy of the parameters every engine and socket of this side gets. */
  public SSLParameters parameters() {
    SSLParameters copy = new SSLParameters(parameters.getCipherSuites(), parameters.getProtocols());
    copy.setNeedClientAuth(parameters.getNeedClientAuth());
    copy.setApplicationProtocols(parameters.getApplicationProtocols());
    copy.setEndpointIdentificationAlgorithm(parameters.getEndpointIdentificationAlgorithm());
    copy.setUseCipherSuitesOrder(parameters.getUseCipherSuitesOrder());
    return copy;
  }

  /**
   * A new engine for one connection. On a server {@code peerHost}/{@code peerPort} are the remote
   * end (kept by the session); on a client, the host dialed, whose name the certificate must carry.
   */
  public SSLEngine newEngine(String peerHost, int peerPort) {
    BoringSslServer boring = boringSsl;
    if (boring != null) {
      return boring.newEngine();
    }
    SSLEngine engine = context.createSSLEngine(peerHost, peerPort);
    engine.setUseClientMode(!server);
    engine.setSSLParameters(parameters());
    if (server) {
      engine.setHandshakeApplicationProtocolSelector((e, offered) -> alpn(offered));
    }
    return engine;
  }

  /** Applies this side's parameters to a listening socket from {@code context().getServerSocketFactory()}. */
  public void configure(SSLServerSocket socket) {
    socket.setSSLParameters(parameters());
  }

  /** Applies the per-connection ALPN rule to an accepted socket, before its handshake. */
  public void configureAccepted(SSLSocket socket) {
    socket.setHandshakeApplicationProtocolSelector((s, offered) -> alpn(offered));
  }

  /**
   * Go's ALPN choice with NextProtos ["h2"]: "h2" when offered; no protocol (no extension) for a
   * client offering only "http/1.1" (curl, HTTP/1 clients); otherwise no_application_protocol.
   */
  static String alpn(List<String> offered) {
    if (offered.contains(H2)) {
      return H2;
    }
    return offered.contains(HTTP11) ? "" : null;
  }

  private static String orEmpty(Object o) {
    return o == null ? "" : o.toString();
  }
}
