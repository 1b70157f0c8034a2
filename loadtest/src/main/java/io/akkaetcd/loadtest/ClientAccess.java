package io.akkaetcd.loadtest;

import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;

/**
 * How the tool reaches a server: plaintext or TLS trusting one CA ({@code tls}, shared by every
 * channel so the JDK's client session cache can resume sessions), anonymously or as an etcd user
 * (each channel authenticates once and sends the token with every call, as clientv3 does).
 */
record ClientAccess(SslContext tls, String user, String password) {
  static final ClientAccess PLAIN = new ClientAccess(null, null, null);

  /** The URL scheme of a client endpoint reached this way. */
  String scheme() {
    return tls == null ? "http" : "https";
  }

  /** The same transport, as {@code user:password} (etcd benchmark's --user); "" keeps it anonymous. */
  ClientAccess as(String userColonPassword) {
    if (userColonPassword.isEmpty()) return this;
    int colon = userColonPassword.indexOf(':');
    if (colon < 0) throw new IllegalArgumentException("--user must be name:password");
    return new ClientAccess(tls, userColonPassword.substring(0, colon), userColonPassword.substring(colon + 1));
  }
}
