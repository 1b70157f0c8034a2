package io.akkaetcd.tls;

import akka.actor.ActorSystem;
import akka.remote.artery.tcp.SSLEngineProvider;
import com.typesafe.config.Config;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import scala.Option;

/**
 * Artery's TLS transport ({@code akka.remote.artery.transport = tls-tcp}) with etcd's peer flags,
 * named by {@code akka.remote.artery.ssl.ssl-engine-provider}. Artery builds it with the actor
 * system, so the peer flags reach it as config: the block at {@link #CONFIG_PATH} holds etcd's
 * flag names ({@code peer-cert-file}, {@code peer-trusted-ca-file}, ..., {@code cipher-suites})
 * with their string values, plus {@code data-dir} and {@code listen-peer-urls} (comma-separated)
 * for {@code --peer-auto-tls}, whose files it finds or makes as etcd does.
 *
 * <p>Every check is made in the handshake by {@link EtcdTrustManager} (CA, CRL, allowed CN or
 * hostname on both ends; the dialed host's name on the dialing end), so the session checks that
 * Artery calls afterwards pass. Engines of both ends share one context per end, and its session
 * cache. Thread-safe.
 */
public final class PeerSslEngineProvider implements SSLEngineProvider {
  public static final String CONFIG_PATH = "akka.remote.artery.ssl.etcd-peer-tls";

  private final TlsConfig server;
  private final TlsConfig client;

  public PeerSslEngineProvider(ActorSystem system) {
    this(system.settings().config().getConfig(CONFIG_PATH));
  }

  PeerSslEngineProvider(Config config) {
    this(sides(flags(config)));
  }

  private PeerSslEngineProvider(Sides sides) {
    this.server = sides.server();
    this.client = sides.client();
  }

  /** The accepting and the dialing side of peer TLS. */
  public record Sides(TlsConfig server, TlsConfig client) {}

  /**
   * Both sides of peer TLS from etcd's peer flags by name ({@code peer-cert-file}, ...), plus
   * {@code data-dir} and {@code listen-peer-urls} (comma-separated) for {@code --peer-auto-tls},
   * whose files are found or made as etcd does: the same for every caller.
   */
  public static Sides sides(Map<String, String> flags) {
    TlsInfo info = TlsInfo.peer(flags);
    if (info.autoTls()) {
      List<URI> urls = new ArrayList<>();
      for (String url : flags.getOrDefault("listen-peer-urls", "").split(",")) {
        if (!url.isBlank()) {
          urls.add(URI.create(url.trim()));
        }
      }
      info = SelfCert.apply(info, Path.of(flags.getOrDefault("data-dir", ".")), "peer", urls);
    }
    return new Sides(TlsConfig.server(info), TlsConfig.client(info));
  }

  private static Map<String, String> flags(Config config) {
    Map<String, String> flags = new HashMap<>();
    config.entrySet().forEach(e -> flags.put(e.getKey(), String.valueOf(e.getValue().unwrapped())));
    return flags;
  }

  @Override
  public SSLEngine createServerSSLEngine(String hostname, int port) {
    return server.newEngine(hostname, port);
  }

  @Override
  public SSLEngine createClientSSLEngine(String hostname, int port) {
    return client.newEngine(hostname, port);
  }

  @Override
  public Option<Throwable> verifyClientSession(String hostname, SSLSession session) {
    return Option.empty();
  }

  @Override
  public Option<Throwable> verifyServerSession(String hostname, SSLSession session) {
    return Option.empty();
  }
}
