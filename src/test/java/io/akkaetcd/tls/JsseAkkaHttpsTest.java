package io.akkaetcd.tls;

/** {@link AkkaHttpsTest} with the JDK's engines: where BoringSSL does not load, or for the peers' side. */
class JsseAkkaHttpsTest extends AkkaHttpsTest {
  @Override
  TlsConfig engines(TlsConfig jsse) {
    return jsse;
  }
}
