/**
 * etcd's TLS (issue #26), free of listeners: {@link io.akkaetcd.tls.TlsInfo} from etcd's client
 * and peer flags, {@link io.akkaetcd.tls.TlsConfig} turning it into a JSSE context and engines,
 * {@link io.akkaetcd.tls.SelfCert} for {@code --auto-tls}, {@link io.akkaetcd.tls.CertIdentity}
 * for the certificate user, and {@link io.akkaetcd.tls.PeerSslEngineProvider} for Artery. The
 * client listeners (Akka HTTP) and the peer transport use it; it uses nothing above
 * {@code errors}. The JDK does the TLS; BouncyCastle reads PEM and writes certificates.
 */
package io.akkaetcd.tls;
