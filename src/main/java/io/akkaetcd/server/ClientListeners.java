package io.akkaetcd.server;

import akka.actor.typed.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.stream.Materializer;
import io.akkaetcd.api.ClientRouter;
import io.akkaetcd.api.ClientServices;
import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.api.GrpcServices;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A member's client listeners: etcd's gRPC services (KV, Watch, Lease, Cluster, Maintenance,
 * Health) served over HTTP/2 by Akka HTTP on each --listen-client-urls (cleartext, or TLS for
 * {@code https://}: {@link ClientTls}), all routed through one {@link ClientRouter}.
 */
final class ClientListeners {
  private ClientListeners() {}

  /**
   * Binds every --listen-client-urls (with {@code tls} for {@code https://} ones) to the gRPC services of {@code shared}; each binding unbinds
   * in {@code system}'s CoordinatedShutdown. Throws etcd's start-up error for an address taken.
   */
  static List<ServerBinding> bind(ServerConfig config, ClientTls tls, EtcdMember member, ClientServices shared,
      ActorSystem<?> system) {
    ClientRouter router = new ClientRouter(GrpcServices.handlers(shared, config.maxRequestBytes(), system), member,
        shared.metrics(), Materializer.matFromSystem(system));
    List<ServerBinding> bindings = new ArrayList<>();
    for (URI url : config.listenClientUrls()) {
      ServerBinding binding;
      try {
        binding = tls.serve(Http.get(system).newServerAt(url.getHost(), url.getPort()), url).bind(router)
            .toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
      } catch (java.util.concurrent.CompletionException e) {
        // Taken since ListenUrls.check found it free: say so in one line, as etcd would have.
        throw ListenUrls.bindFailed(new InetSocketAddress(url.getHost(), url.getPort()), e);
      }
      binding.addToCoordinatedShutdown(Duration.ofSeconds(3), system);
      bindings.add(binding);
    }
    return List.copyOf(bindings);
  }
}
