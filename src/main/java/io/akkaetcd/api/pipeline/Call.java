package io.akkaetcd.api.pipeline;

import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.errors.EtcdError;
import java.net.InetSocketAddress;

/**
 * One call as the {@link Pipeline} sees it, whatever the transport: which RPC (etcd's full method
 * name, e.g. {@code /etcdserverpb.KV/Put}), over which transport, the request's metadata and the
 * peer's address if known. The transport makes one for each unary call or stream; it is confined
 * to that call (its stages run one after the other), so the authenticated user needs no lock.
 */
public abstract class Call {
  private final String method;
  private final Transport transport;
  private final long startedNanos = System.nanoTime();
  private AuthInfo authInfo;
  private EtcdError refusedCredential;
  private String inProcessUser;

  protected Call(String method, Transport transport) {
    this.method = method;
    this.transport = transport;
  }

  /** A call of the in-process client: no metadata, no peer. */
  public static Call inProcess(String method) {
    return inProcess(method, null);
  }

  /**
   * A call of the in-process client acting as {@code user} (null: anonymous): code in the
   * member's own JVM is trusted with a user name, as a client certificate's CN is in etcd.
   */
  public static Call inProcess(String method, String user) {
    Call call = new Call(method, Transport.IN_PROCESS) {
      @Override
      public String metadata(String key) {
        return null;
      }

      @Override
      public InetSocketAddress peer() {
        return null;
      }
    };
    call.inProcessUser = user;
    return call;
  }

  /** The user an in-process call acts as, or null. */
  public String inProcessUser() {
    return inProcessUser;
  }

  /** etcd's full method name, {@code /<service>/<method>} as gRPC names it. */
  public String method() {
    return method;
  }

  public Transport transport() {
    return transport;
  }

  /**
   * The value of a request metadata key (lower case, as gRPC sends it: etcd's {@code token},
   * {@code hasleader}), or null if the call has none.
   */
  public abstract String metadata(String key);

  /** The caller's address, or null if the transport does not know it. */
  public abstract InetSocketAddress peer();

  /**
   * The Common Name of the client certificate the TLS handshake verified, or null: no TLS, no
   * certificate, or a transport whose certificate is not the caller's (etcd ignores it for the
   * gateway, whose own certificate dials gRPC).
   */
  public String certificateUser() {
    return null;
  }

  /** {@link System#nanoTime} when the transport made the call: what a metrics hook times from. */
  public long startedNanos() {
    return startedNanos;
  }

  /** The user the authenticate stage found, or null (no credentials, or auth is off). */
  public String user() {
    return authInfo == null ? null : authInfo.username();
  }

  /** The user and the auth revision its credential stands at, or null (no credentials, or auth is off). */
  public AuthInfo authInfo() {
    return authInfo;
  }

  void authenticated(AuthInfo authInfo) {
    this.authInfo = authInfo;
  }

  /**
   * The error of a credential the call carried but the member refused, where etcd reports it per
   * request rather than failing the call (a Watch stream answers each create with it); else null.
   */
  public EtcdError refusedCredential() {
    return refusedCredential;
  }

  /** Set by the authenticator instead of failing the call; see {@link #refusedCredential()}. */
  public void refuseCredentialPerRequest(EtcdError error) {
    this.refusedCredential = error;
  }

  @Override
  public String toString() {
    return method + " over " + transport;
  }
}
