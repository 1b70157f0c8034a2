package io.akkaetcd.tls;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * A server engine whose ALPN choice is made natively (BoringSSL picks "h2" from the context's
 * list) but reported the JDK way: Akka HTTP learns the protocol of a connection only through the
 * selector it sets with {@link #setHandshakeApplicationProtocolSelector}, which a native engine
 * never calls. When the handshake finishes, the selector is called once with the protocol chosen
 * (or none), so Akka switches to HTTP/2 exactly when "h2" was negotiated.
 *
 * <p>Everything else is the wrapped engine's. Confined to the connection's TLS stage, as any engine.
 */
final class AlpnReportingEngine extends SSLEngine {
  private final SSLEngine engine;
  private BiFunction<SSLEngine, List<String>, String> selector;
  private boolean reported;

  AlpnReportingEngine(SSLEngine engine) {
    super(engine.getPeerHost(), engine.getPeerPort());
    this.engine = engine;
  }

  private SSLEngineResult report(SSLEngineResult result) {
    if (!reported && result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
      reported = true;
      String chosen = engine.getApplicationProtocol();
      if (selector != null) {
        selector.apply(this, chosen == null || chosen.isEmpty() ? List.of() : List.of(chosen));
      }
    }
    return result;
  }

  @Override
  public void setHandshakeApplicationProtocolSelector(BiFunction<SSLEngine, List<String>, String> selector) {
    this.selector = selector;
  }

  @Override
  public BiFunction<SSLEngine, List<String>, String> getHandshakeApplicationProtocolSelector() {
    return selector;
  }

  @Override
  public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
    return report(engine.wrap(srcs, offset, length, dst));
  }

  @Override
  public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
    return report(engine.unwrap(src, dsts, offset, length));
  }

  @Override
  public Runnable getDelegatedTask() {
    return engine.getDelegatedTask();
  }

  @Override
  public void closeInbound() throws SSLException {
    engine.closeInbound();
  }

  @Override
  public boolean isInboundDone() {
    return engine.isInboundDone();
  }

  @Override
  public void closeOutbound() {
    engine.closeOutbound();
  }

  @Override
  public boolean isOutboundDone() {
    return engine.isOutboundDone();
  }

  @Override
  public String[] getSupportedCipherSuites() {
    return engine.getSupportedCipherSuites();
  }

  @Override
  public String[] getEnabledCipherSuites() {
    return engine.getEnabledCipherSuites();
  }

  @Override
  public void setEnabledCipherSuites(String[] suites) {
    engine.setEnabledCipherSuites(suites);
  }

  @Override
  public String[] getSupportedProtocols() {
    return engine.getSupportedProtocols();
  }

  @Override
  public String[] getEnabledProtocols() {
    return engine.getEnabledProtocols();
  }

  @Override
  public void setEnabledProtocols(String[] protocols) {
    engine.setEnabledProtocols(protocols);
  }

  @Override
  public SSLSession getSession() {
    return engine.getSession();
  }

  @Override
  public SSLSession getHandshakeSession() {
    return engine.getHandshakeSession();
  }

  @Override
  public void beginHandshake() throws SSLException {
    engine.beginHandshake();
  }

  @Override
  public SSLEngineResult.HandshakeStatus getHandshakeStatus() {
    return engine.getHandshakeStatus();
  }

  @Override
  public void setUseClientMode(boolean mode) {
    engine.setUseClientMode(mode);
  }

  @Override
  public boolean getUseClientMode() {
    return engine.getUseClientMode();
  }

  @Override
  public void setNeedClientAuth(boolean need) {
    engine.setNeedClientAuth(need);
  }

  @Override
  public boolean getNeedClientAuth() {
    return engine.getNeedClientAuth();
  }

  @Override
  public void setWantClientAuth(boolean want) {
    engine.setWantClientAuth(want);
  }

  @Override
  public boolean getWantClientAuth() {
    return engine.getWantClientAuth();
  }

  @Override
  public void setEnableSessionCreation(boolean flag) {
    engine.setEnableSessionCreation(flag);
  }

  @Override
  public boolean getEnableSessionCreation() {
    return engine.getEnableSessionCreation();
  }

  @Override
  public SSLParameters getSSLParameters() {
    return engine.getSSLParameters();
  }

  @Override
  public void setSSLParameters(SSLParameters params) {
    engine.setSSLParameters(params);
  }

  @Override
  public String getApplicationProtocol() {
    return engine.getApplicationProtocol();
  }

  @Override
  public String getHandshakeApplicationProtocol() {
    return engine.getHandshakeApplicationProtocol();
  }
}
