package io.akkaetcd.loadtest;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;

/**
 * Sends one channel's etcd token in the {@code token} header of every call, as clientv3 does; no
 * header until {@link #set} (the Authenticate call that fetches it goes without).
 */
final class AuthToken implements ClientInterceptor {
  private static final Metadata.Key<String> TOKEN = Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER);

  private volatile String token;

  void set(String token) {
    this.token = token;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        String t = token;
        if (t != null) headers.put(TOKEN, t);
        super.start(listener, headers);
      }
    };
  }
}
