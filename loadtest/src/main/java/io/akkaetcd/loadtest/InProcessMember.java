package io.akkaetcd.loadtest;

import static java.lang.invoke.MethodType.methodType;

import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.grpc.Status;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One akka-etcd member started inside this JVM, and the put of its in-process client
 * ({@code EmbeddedEtcd#client().kv()}). The server is reached by reflection: the tool compiles without
 * it (bin/test builds the tool before the server), and {@code loadtest/in-process} runs the tool
 * with {@code target/akka-etcd.jar} and {@code target/lib/*} behind it on one class path. Both
 * generate etcd's messages from {@code protobuf/} with the same protoc, so the tool's PutRequest is
 * the one the server loads.
 */
final class InProcessMember implements AutoCloseable {
  private static final MethodHandles.Lookup LOOKUP = MethodHandles.publicLookup();

  /** host:port of the member's client URL, for the gRPC path. */
  final String endpoint;
  private final AutoCloseable server;
  /** Kv#put(PutRequest), bound to the member's in-process client: (PutRequest) CompletionStage. */
  private final MethodHandle put;

  private InProcessMember(String endpoint, AutoCloseable server, MethodHandle put) {
    this.endpoint = endpoint;
    this.server = server;
    this.put = put;
  }

  /** Starts a lone member on free loopback ports with its data in {@code dataDir}; returns when it serves. */
  static InProcessMember start(Path dataDir) throws Exception {
    String endpoint = "127.0.0.1:" + ServerUnderTest.freePort();
    String peerUrl = "http://127.0.0.1:" + ServerUnderTest.freePort();
    List<String> flags = ServerUnderTest.memberFlags("default", dataDir, endpoint, peerUrl, "default=" + peerUrl);
    AutoCloseable server = (AutoCloseable) startServer(flags);
    try {
      ((CompletionStage<?>) call(server, "ready", CompletionStage.class)).toCompletableFuture().get(5, TimeUnit.MINUTES);
      Object kv = call(call(server, "client", Class.forName("io.akkaetcd.embed.EtcdClient")), "kv",
          Class.forName("io.akkaetcd.embed.Kv"));
      MethodHandle put = LOOKUP.findVirtual(kv.getClass(), "put", methodType(CompletionStage.class, PutRequest.class)).bindTo(kv);
      return new InProcessMember(endpoint, server, put);
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
  }

  /**
   * The one place that knows how a member starts in a JVM of one's own: {@code
   * EmbeddedEtcd.start(EtcdConfig.fromServerConfig(ServerConfig.fromFlags(Flags.parse(flags, env)),
   * ConfigFactory.load()))}, etcd's flags in.
   */
  private static Object startServer(List<String> flags) throws Exception {
    Class<?> config;
    try {
      config = Class.forName("io.akkaetcd.server.ServerConfig");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("the server is not on the class path: run loadtest/in-process", e);
    }
    Class<?> embedded = Class.forName("io.akkaetcd.embed.EmbeddedEtcd");
    Class<?> etcdConfig = Class.forName("io.akkaetcd.embed.EtcdConfig");
    Class<?> hocon = Class.forName("com.typesafe.config.Config");
    Object values = invoke(LOOKUP.findStatic(Class.forName("io.akkaetcd.server.Flags"), "parse",
        methodType(Map.class, String[].class, Map.class)), flags.toArray(String[]::new), Map.of());
    Object parsed = invoke(LOOKUP.findStatic(config, "fromFlags", methodType(config, Map.class)), values);
    Object settings = invoke(LOOKUP.findStatic(Class.forName("com.typesafe.config.ConfigFactory"), "load",
        methodType(hocon)));
    Object embedConfig = invoke(LOOKUP.findStatic(etcdConfig, "fromServerConfig",
        methodType(etcdConfig, config, hocon)), parsed, settings);
    return invoke(LOOKUP.findStatic(embedded, "start", methodType(embedded, etcdConfig)), embedConfig);
  }

  /** {@code target.name()}, a public method without arguments returning {@code type}. */
  private static Object call(Object target, String name, Class<?> type) throws Exception {
    return invoke(LOOKUP.findVirtual(target.getClass(), name, methodType(type)), target);
  }

  private static Object invoke(MethodHandle method, Object... args) throws Exception {
    try {
      return method.invokeWithArguments(args);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /** One put through the in-process client; {@code done} gets OK or the failure (etcd's error text). */
  void put(PutRequest request, Consumer<Status> done) {
    CompletionStage<?> answer;
    try {
      answer = (CompletionStage<?>) put.invokeExact(request);
    } catch (Throwable e) {
      done.accept(failure(e));
      return;
    }
    answer.whenComplete((r, e) -> done.accept(e == null ? Status.OK : failure(e)));
  }

  /** A failure as the report counts it: etcd's error text (an EtcdException's message). */
  private static Status failure(Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return Status.UNKNOWN.withDescription(cause.getClass().getSimpleName() + ": " + cause.getMessage());
  }

  /** Stops the member cleanly (its store closed); the data dir stays. */
  @Override
  public void close() throws Exception {
    server.close();
  }
}
