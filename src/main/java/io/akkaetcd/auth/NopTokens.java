package io.akkaetcd.auth;

import io.akkaetcd.errors.EtcdError;
import java.util.Optional;

/** {@code --auth-token ""}: no token is ever issued (Authenticate fails) nor accepted. */
public final class NopTokens implements TokenProvider {
  @Override
  public String assign(String username, long authRevision, String prefix, long index) {
    throw EtcdError.AUTH_FAILED.exception();
  }

  @Override
  public Optional<AuthInfo> info(String token, long authRevision) {
    return Optional.empty();
  }
}
