package io.akkaetcd.tls;

import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import io.grpc.netty.shaded.io.netty.handler.ssl.ApplicationProtocolConfig;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.OpenSsl;
import io.grpc.netty.shaded.io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.grpc.netty.shaded.io.netty.handler.ssl.OpenSslContextOption;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;
import io.grpc.netty.shaded.io.netty.handler.ssl.util.SimpleKeyManagerFactory;
import java.security.KeyStore;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/**
 * The client listeners' handshakes in BoringSSL (netty-tcnative, as grpc-netty-shaded already
 * ships it for linux and macOS, x86_64 and aarch64) instead of JSSE: a full ECDHE/ECDSA handshake
 * costs a fraction of the JDK's CPU (issue #26: new TLS connections per second).
 *
 * <p>It keeps what {@link TlsConfig} decides: the same {@link ReloadingKeyManager} (asked for an
 * alias at each handshake; each loaded pair has its own alias, so caching the native key
 * material per alias still sees rotations), the same {@link EtcdTrustManager} (CA, CRL, allowed
 * name), TLS 1.2 and 1.3, the {@code --cipher-suites}, the client certificate rule, ALPN "h2"
 * (reported to Akka by {@link AlpnReportingEngine}). Sessions resume by TLS 1.3 tickets (BoringSSL
 * sends two per handshake) and TLS 1.2 session ids. Immutable; thread-safe.
 */
final class BoringSslServer {
  /** {@code -Dakka-etcd.tls.native=false} keeps the JDK's engine. */
  static final String PROPERTY = "akka-etcd.tls.native";

  private final SslContext context;

  private BoringSslServer(SslContext context) {
    this.context = context;
  }

  /**
   * The native side for these settings, or null with the reason in {@code why[0]}: the library
   * does not load here, it is switched off, or a {@code --cipher-suites} name ({@code restricted}:
   * the parameters' suites were asked for) has no BoringSSL counterpart (JSSE then serves, so every suite asked for is honoured).
   */
  static BoringSslServer create(KeyManager keys, TrustManager trust, SSLParameters p, boolean restricted,
      String[] why) {
    if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) {
      why[0] = "-D" + PROPERTY + "=false";
      return null;
    }
    if (!OpenSsl.isAvailable()) {
      why[0] = String.valueOf(OpenSsl.unavailabilityCause());
      return null;
    }
    // The JDK's renegotiation signal is no suite to BoringSSL, which always sends it.
    List<String> suites = Arrays.stream(p.getCipherSuites()).filter(s -> !s.endsWith("_SCSV")).toList();
    if (restricted && !OpenSsl.availableJavaCipherSuites().containsAll(
        suites.stream().filter(s -> !GoCipherSuites.isTls13(s)).toList())) {
      why[0] = "a --cipher-suites name BoringSSL lacks";
      return null;
    }
    try {
      SslContextBuilder b = SslContextBuilder.forServer(new OpenSslCachingX509KeyManagerFactory(new Single(keys)))
          .sslProvider(SslProvider.OPENSSL)
          // Key and certificate callbacks inline in unwrap: after a delegated task the engine says
          // NEED_UNWRAP yet waits to be driven again, which Akka's TLS stage never does (it stalls).
          .option(OpenSslContextOption.USE_TASKS, false)
          .trustManager(trust)
          .protocols(p.getProtocols())
          .clientAuth(p.getNeedClientAuth() ? ClientAuth.REQUIRE : ClientAuth.NONE)
          // Go's NextProtos ["h2"]: h2 when offered, else no ALPN (curl --http1.1 stays in).
          .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, TlsConfig.H2));
      if (restricted) {
        b.ciphers(suites);
      }
      return new BoringSslServer(b.build());
    } catch (SSLException | RuntimeException e) {
      why[0] = e.toString();
      return null;
    }
  }

  /** A new engine for one accepted connection. */
  SSLEngine newEngine() {
    return new AlpnReportingEngine(context.newEngine(ByteBufAllocator.DEFAULT));
  }

  /** "BoringSSL x.y": the library serving handshakes. */
  static String version() {
    return OpenSsl.versionString();
  }

  /** Hands netty our one key manager as a factory, which is what its key material cache wraps. */
  private static final class Single extends SimpleKeyManagerFactory {
    private final KeyManager[] keys;

    Single(KeyManager keys) {
      this.keys = new KeyManager[] {keys};
    }

    @Override
    protected void engineInit(KeyStore keyStore, char[] password) {}

    @Override
    protected void engineInit(ManagerFactoryParameters params) {}

    @Override
    protected KeyManager[] engineGetKeyManagers() {
      return keys.clone();
    }
  }
}
