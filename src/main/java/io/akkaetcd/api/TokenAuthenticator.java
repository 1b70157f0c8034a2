package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.Authenticator;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.errors.EtcdError;

/**
 * etcd's AuthInfoFromCtx: the token of metadata {@code token} (or {@code authorization}, as the
 * gateway sends it) names the caller; a token this member does not know (never assigned here,
 * expired, dropped) is "invalid auth token". Without a token, an in-process call acts as its
 * client's user; with {@code --client-cert-auth}, a gRPC call acts as its verified client
 * certificate's CN at the store's revision (etcd's AuthInfoFromTLS: the CN need not be a user,
 * the check then denies); any other call is anonymous. While auth is off tokens are ignored
 * (etcd 3.4.29 and 3.5; 3.4.23 refused a stale one).
 */
final class TokenAuthenticator implements Authenticator {
  private final AuthApplier auth;
  private final boolean certificateUsers;

  TokenAuthenticator(AuthApplier auth, boolean certificateUsers) {
    this.auth = auth;
    this.certificateUsers = certificateUsers;
  }

  @Override
  public AuthInfo authenticate(Call call) {
    AuthState state = auth.state();
    if (!state.enabled()) {
      return null;
    }
    String token = call.metadata("token");
    if (token == null) {
      token = call.metadata("authorization");
    }
    if (token != null) {
      return auth.tokens().info(token, state.revision()).orElseThrow(EtcdError.INVALID_AUTH_TOKEN::exception);
    }
    // the in-process client's user, or the certificate's CN, at the store's revision
    String user = call.inProcessUser();
    if (user == null && certificateUsers) {
      user = call.certificateUser();
    }
    return user == null ? null : new AuthInfo(user, state.revision());
  }
}
