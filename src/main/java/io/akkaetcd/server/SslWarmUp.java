package io.akkaetcd.server;

import java.security.GeneralSecurityException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;

/**
 * Akka HTTP gives every cleartext connection a placeholder TLS session made from the JDK's
 * default SSLContext ({@code akka.stream.scaladsl.TLSPlacebo}), so a member's first client
 * connection, TLS or not, set up the JDK's TLS stack and read its trust store (issue #32). Made
 * here instead, once per JVM, on a thread of its own while the member starts.
 */
final class SslWarmUp {
  private static final AtomicBoolean begun = new AtomicBoolean();

  private SslWarmUp() {}

  static void begin() {
    if (!begun.compareAndSet(false, true)) {
      return;
    }
    DaemonThread.run("akka-etcd-ssl-warm-up", () -> {
      try {
        SSLContext.getDefault().createSSLEngine().getSession();
      } catch (GeneralSecurityException | RuntimeException e) {
        // The first connection meets the same failure and reports it.
      }
    });
  }
}
