package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.Authenticator;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.errors.EtcdError;
import java.util.Optional;

/**
 * etcd's AuthInfoFromCtx: the token of metadata {@code token} (or {@code authorization}, as the
 * gateway sends it) names the caller; a token this member does not know (never assigned here,
 * expired, dropped) is "invalid auth token". Without a token, an in-process call acts as its
 * client's user; with {@code --client-cert-auth}, a gRPC call acts as its verified client
 * certificate's CN at the store's revision (etcd's AuthInfoFromTLS: the CN need not be a user,
 * the check then denies); any other call is anonymous. While auth is off tokens are ignored
 * (etcd 3.4.29 and 3.5; 3.4.23 refused a stale one).
 *
 * <p>Two streams read the token as etcd 3.4 does, not at the call: a Watch's is checked for each
 * watch created (an unknown one cancels that watch with the Go status text, the stream goes on),
 * and a LeaseKeepAlive's is not read at all, unless the strict matrix (3.5.28) asks for its user.
 */
final class TokenAuthenticator implements Authenticator {
  private final AuthApplier auth;
  private final boolean certificateUsers;
  private final boolean strictMatrix;

  TokenAuthenticator(AuthApplier auth, boolean certificateUsers, boolean strictMatrix) {
    this.auth = auth;
    this.certificateUsers = certificateUsers;
    this.strictMatrix = strictMatrix;
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
      Optional<AuthInfo> info = auth.tokens().info(token, state.revision());
      if (info.isPresent()) {
        return info.get();
      }
      if (call.method().equals(Methods.LEASE_KEEP_ALIVE) && !strictMatrix) {
        return null;
      }
      if (call.method().equals(Methods.WATCH)) {
        call.refuseCredentialPerRequest(EtcdError.INVALID_AUTH_TOKEN);
        return null;
      }
      throw EtcdError.INVALID_AUTH_TOKEN.exception();
    }
    // the in-process client's user, or the certificate's CN, at the store's revision
    String user = call.inProcessUser();
    if (user == null && certificateUsers) {
      user = call.certificateUser();
    }
    return user == null ? null : new AuthInfo(user, state.revision());
  }
}
