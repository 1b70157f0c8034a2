package io.akkaetcd.server;

import akka.http.javadsl.ConnectionContext;
import akka.http.javadsl.HttpsConnectionContext;
import akka.http.javadsl.ServerBuilder;
import io.akkaetcd.tls.SelfCert;
import io.akkaetcd.tls.TlsConfig;
import io.akkaetcd.tls.TlsInfo;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS of a member's client listeners, as etcd's configureClientListeners sets it up: the
 * {@code --auto-tls} certificate made first (etcd's ClientSelfCert), then each listen URL checked
 * ({@code https://} needs a certificate; {@code http://} ignores one, with etcd's warning). Every
 * {@code https://} listener serves with one {@link TlsConfig}, so they share a session cache and
 * the certificate files re-read on change. gRPC and HTTP share each port (ALPN h2).
 */
final class ClientTls {
  private static final Logger log = LoggerFactory.getLogger(ClientTls.class);

  private final TlsInfo info;
  /** Null when no listener speaks TLS. */
  private final HttpsConnectionContext https;

  private ClientTls(TlsInfo info, HttpsConnectionContext https) {
    this.info = info;
    this.https = https;
  }

  /** Fails start-up with etcd's error for an {@code https://} URL this member cannot serve. */
  static ClientTls resolve(ServerConfig config) {
    TlsInfo info = SelfCert.apply(config.clientTls(), config.dataDir(), "client", config.listenClientUrls());
    boolean anyTls = false;
    for (URI url : config.listenClientUrls()) {
      if (isTls(url)) {
        info.checkClientUrl(url.toString());
        anyTls = true;
      } else {
        if (!info.empty()) {
          log.warn("scheme is HTTP while key and cert files are present; ignoring key and cert files (client-url {})",
              url);
        }
        if (info.clientCertAuth()) {
          log.warn("scheme is HTTP while --client-cert-auth is enabled; ignoring client cert auth for this URL"
              + " (client-url {})", url);
        }
      }
    }
    if (!anyTls) {
      return new ClientTls(info, null);
    }
    TlsConfig server = TlsConfig.server(info).withNativeEngines();
    log.info("starting with client TLS (tls-info {}, cipher-suites {})", info, info.cipherSuites());
    return new ClientTls(info, ConnectionContext.httpsServer(() -> server.newEngine(null, -1)));
  }

  /** {@code builder} serving TLS if {@code url} is {@code https://}. */
  ServerBuilder serve(ServerBuilder builder, URI url) {
    return isTls(url) ? builder.enableHttps(https) : builder;
  }

  TlsInfo info() {
    return info;
  }

  static boolean isTls(URI url) {
    return url.getScheme().equals("https") || url.getScheme().equals("unixs");
  }
}
