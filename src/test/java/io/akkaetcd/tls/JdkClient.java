package io.akkaetcd.tls;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A plain JDK TLS client for the tests, built without the code under test: trusts one CA
 * certificate and optionally presents an {@link TestCerts.Issued} certificate.
 */
public final class JdkClient {
  private final SSLContext context;

  public JdkClient(X509Certificate trustedCa, TestCerts.Issued clientCert)
      throws GeneralSecurityException, IOException {
    this(trustedCa, clientCert, false);
  }

  /**
   * {@code offerAlways}: present the certificate even when the server's list of accepted CAs does
   * not name its issuer (JSSE's and Go's clients then send none), so the server's own check runs.
   */
  JdkClient(X509Certificate trustedCa, TestCerts.Issued clientCert, boolean offerAlways)
      throws GeneralSecurityException, IOException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", trustedCa);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = null;
    if (clientCert != null) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("me", clientCert.privateKey(), new char[0], new Certificate[] {clientCert.certificate()});
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, new char[0]);
    }
    context = SSLContext.getInstance("TLS");
    KeyManager[] keyManagers = kmf == null ? null : kmf.getKeyManagers();
    if (keyManagers != null && offerAlways) {
      keyManagers = new KeyManager[] {new AnyIssuer((X509ExtendedKeyManager) keyManagers[0])};
    }
    context.init(keyManagers, tmf.getTrustManagers(), null);
  }

  public SSLContext context() {
    return context;
  }

  /** A connection to 127.0.0.1:{@code port}, the server checked for an IP SAN 127.0.0.1; handshake done. */
  Connection connect(int port, SSLParameters tweak) throws IOException {
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
    SSLParameters p = tweak != null ? tweak : new SSLParameters();
    p.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(p);
    return Connection.open(socket);
  }

  /** Chooses the client certificate as if the server accepted any issuer. */
  private static final class AnyIssuer extends X509ExtendedKeyManager {
    private final X509ExtendedKeyManager km;

    AnyIssuer(X509ExtendedKeyManager km) {
      this.km = km;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return km.chooseEngineClientAlias(keyType, null, engine);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return km.chooseClientAlias(keyType, null, socket);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return km.getClientAliases(keyType, null);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return km.getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return km.chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return km.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return km.getPrivateKey(alias);
    }
  }

  /** One client connection: say a line, read the answer. */
  record Connection(SSLSocket socket, PrintWriter out, BufferedReader in) implements AutoCloseable {
    static Connection open(SSLSocket socket) throws IOException {
      socket.setSoTimeout(20_000);
      socket.startHandshake();
      return new Connection(socket, new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8),
          new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)));
    }

    /** Sends {@code line} and returns the server's answer (null when the server closed). */
    String say(String line) throws IOException {
      out.println(line);
      return in.readLine();
    }

    X509Certificate serverCert() throws IOException {
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
