package io.akkaetcd.api.pipeline;

/** What a member plugs into its one {@link Pipeline}: auth's two stages and the metrics hook. */
public record Plugins(Authenticator authenticator, Authorizer authorizer, CallObserver observer) {
  /** etcd with auth disabled, and no metrics. */
  public static final Plugins NONE = new Plugins(Authenticator.ALLOW_ALL, Authorizer.ALLOW_ALL, CallObserver.NONE);

  public Plugins withObserver(CallObserver observer) {
    return new Plugins(authenticator, authorizer, observer);
  }

  public Plugins withAuthorizer(Authorizer authorizer) {
    return new Plugins(authenticator, authorizer, observer);
  }

  public Plugins withAuthenticator(Authenticator authenticator) {
    return new Plugins(authenticator, authorizer, observer);
  }
}
