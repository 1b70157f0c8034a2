package io.akkaetcd.server;

import akka.actor.typed.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.settings.ServerSettings;
import akka.stream.Materializer;
import io.akkaetcd.api.ClientRouter;
import io.akkaetcd.api.ClientServices;
import io.akkaetcd.api.CorsOrigins;
import io.akkaetcd.api.EtcdMember;
import io.akkaetcd.api.GrpcServices;
import io.akkaetcd.gateway.JsonGateway;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A member's client listeners: etcd's gRPC services (KV, Watch, Lease, Cluster, Maintenance,
 * Health) served over HTTP/2 by Akka HTTP on each --listen-client-urls (cleartext, or TLS for
 * {@code https://}: {@link ClientTls}), and etcd's JSON gateway ({@link JsonGateway}) on the same
 * URLs, all routed through one {@link ClientRouter}.
 */
final class ClientListeners {
  private ClientListeners() {}

  /**
   * Binds every --listen-client-urls (with {@code tls} for {@code https://} ones) to the gRPC
   * services of {@code shared}, with {@code settings} (not the system's: it may be a host
   * application's); the member's {@link MemberHome} unbinds them. Throws etcd's start-up error for
   * an address taken.
   */
  static List<ServerBinding> bind(ServerConfig config, ClientTls tls, EtcdMember member, ClientServices shared,
      ActorSystem<?> system, ServerSettings settings) {
    var grpc = GrpcServices.handlers(shared, config.maxRequestBytes(), system);
    Materializer mat = Materializer.matFromSystem(system);
    JsonGateway gateway = new JsonGateway(GrpcServices.pipelineMethods(grpc), config.maxRequestBytes(),
        shared.metrics(), mat);
    ClientRouter router = new ClientRouter(grpc, member, shared.metrics(),
        config.grpcGateway() ? new ClientRouter.Mount(JsonGateway::serves, gateway) : null,
        CorsOrigins.parse(config.cors()), mat);
    List<ServerBinding> bindings = new ArrayList<>();
    for (URI url : config.listenClientUrls()) {
      ServerBinding binding;
      try {
        binding = tls.serve(Http.get(system).newServerAt(url.getHost(), url.getPort()).withSettings(settings), url)
            .bind(router)
            .toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
      } catch (java.util.concurrent.CompletionException e) {
        // Taken since ListenUrls.check found it free: say so in one line, as etcd would have.
        throw ListenUrls.bindFailed(new InetSocketAddress(url.getHost(), url.getPort()), e);
      }
      bindings.add(binding);
    }
    return List.copyOf(bindings);
  }
}
