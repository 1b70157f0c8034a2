package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.Authenticator;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.errors.EtcdError;

/**
 * etcd's AuthInfoFromCtx: the token of metadata {@code token} (or {@code authorization}, as the
 * gateway sends it) names the caller; without one an in-process call acts as its client's user,
 * any other call is anonymous; a token this member does
 * not know (never assigned here, expired, dropped) is "invalid auth token". While auth is off
 * tokens are ignored (etcd 3.4.29 and 3.5; 3.4.23 refused a stale one).
 */
final class TokenAuthenticator implements Authenticator {
  private final AuthApplier auth;

  TokenAuthenticator(AuthApplier auth) {
    this.auth = auth;
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
    if (token == null) {
      // the in-process client's user, at the store's revision (as etcd's CN users)
      return call.inProcessUser() == null ? null : new AuthInfo(call.inProcessUser(), state.revision());
    }
    return auth.tokens().info(token, state.revision()).orElseThrow(EtcdError.INVALID_AUTH_TOKEN::exception);
  }
}
