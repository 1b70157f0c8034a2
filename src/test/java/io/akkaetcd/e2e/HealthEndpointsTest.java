package io.akkaetcd.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.akkaetcd.proto.health.HealthCheckRequest;
import io.akkaetcd.proto.health.HealthCheckResponse;
import io.akkaetcd.proto.health.HealthCheckResponse.ServingStatus;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * /health, /livez, /readyz and grpc.health.v1 in each state (healthy, NOSPACE alarm, no leader):
 * /health differentially against etcd 3.4.23 (status, Allow and body), /livez and /readyz against
 * etcd 3.5.11's texts (3.4.23 answers 404 for them, checked too).
 */
class HealthEndpointsTest {
  /** A quota a 60 KB value exceeds: the put is refused and NOSPACE raised, in etcd and here. */
  private static final List<String> SMALL_QUOTA = List.of("--quota-backend-bytes", "53248");
  private static final String READY_VERBOSE = "[+]data_corruption ok\n[+]serializable_read ok\n"
      + "[+]linearizable_read ok\nok\n";

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void healthyThenNospaceAsEtcd34() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/etcd")), "etcd is not installed (Debian's etcd-server)");
    Map<String, String> etcd;
    try (ServerProcess e = ServerProcess.start(ServerProcess.Kind.ETCD, SMALL_QUOTA)) {
      assertEquals("404 404 page not found\n", get(e, "/livez"), "3.4.23 has no /livez");
      etcd = observe(e);
    }
    try (ServerProcess a = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, SMALL_QUOTA)) {
      Map<String, String> akka = observe(a);
      assertEquals(etcd, akka, "/health as etcd 3.4.23 answers, healthy and with NOSPACE");
      // 3.5.11's endpoints: NOSPACE is no corruption and reads still work.
      assertEquals("200 ok\n", get(a, "/livez"));
      assertEquals("200 [+]serializable_read ok\nok\n", get(a, "/livez?verbose"));
      assertEquals("200 " + READY_VERBOSE, get(a, "/readyz?verbose"));
      assertEquals("200 [+]data_corruption ok\n[+]linearizable_read ok\nok\n",
          get(a, "/readyz?verbose&exclude=serializable_read"));
      assertEquals("200 [+]linearizable_read ok\nok\n", get(a, "/readyz/linearizable_read?verbose"));
      assertEquals("405 Method Not Allowed\n Allow: GET", send(a, "/readyz", "PUT"));
      assertEquals(ServingStatus.SERVING, grpcHealth(a));
    }
  }

  /** What a server answers before and after a put that exceeds its quota. */
  private Map<String, String> observe(ServerProcess s) throws Exception {
    Map<String, String> seen = new LinkedHashMap<>();
    seen.put("healthy GET /health", get(s, "/health"));
    seen.put("healthy POST /health", send(s, "/health", "POST"));
    Etcdctl.Result put = s.ctl("put", "big", "v".repeat(60_000));
    // etcdctl's own zap lines carry times and ids: only its error line is compared.
    seen.put("put over quota", put.exit() + " " + put.stderr().lines().filter(l -> l.startsWith("Error:")).toList());
    seen.put("NOSPACE GET /health", get(s, "/health"));
    seen.put("NOSPACE GET /health?exclude=NOSPACE", get(s, "/health?exclude=NOSPACE"));
    seen.put("NOSPACE GET /health?exclude=CORRUPT", get(s, "/health?exclude=CORRUPT"));
    return seen;
  }

  @Test
  void noLeader() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/etcd")), "etcd is not installed (Debian's etcd-server)");
    String etcd = leaderless(ServerProcess.Kind.ETCD, s -> {});
    List<String> akkaReady = new ArrayList<>();
    String akka = leaderless(ServerProcess.Kind.AKKA_ETCD, s -> {
      akkaReady.add(get(s, "/livez?verbose"));
      akkaReady.add(get(s, "/readyz"));
      akkaReady.add(grpcHealth(s).name());
    });
    assertEquals("503 {\"health\":\"false\"}\n", etcd);
    assertEquals(etcd, akka);
    assertEquals("200 [+]serializable_read ok\nok\n", akkaReady.get(0), "a lone member is still live");
    assertTrue(akkaReady.get(1).startsWith("503 [+]data_corruption ok\n[+]serializable_read ok\n"
        + "[-]linearizable_read failed: etcdserver: ") && akkaReady.get(1).endsWith("\n\n"), akkaReady.get(1));
    assertEquals("NOT_SERVING", akkaReady.get(2));
  }

  interface Probe {
    void accept(ServerProcess s) throws Exception;
  }

  /** Starts a 3-member cluster, stops two members, and returns m1's /health once it has no leader. */
  private String leaderless(ServerProcess.Kind kind, Probe more) throws Exception {
    List<ServerProcess> members = ServerProcess.cluster(kind, 3, List.of());
    try {
      ServerProcess m1 = members.get(0);
      assertEquals("200 {\"health\":\"true\"}", get(m1, "/health"));
      members.get(1).stop();
      members.get(2).stop();
      m1.awaitNoLeader();
      String health = get(m1, "/health");
      more.accept(m1);
      return health;
    } finally {
      members.forEach(ServerProcess::close);
    }
  }

  private String get(ServerProcess s, String pathAndQuery) throws Exception {
    return send(s, pathAndQuery, "GET");
  }

  /** "status body", plus " Allow: x" when the answer names the allowed methods. */
  private String send(ServerProcess s, String pathAndQuery, String method) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.clientUrl() + pathAndQuery))
        .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString(UTF_8));
    String allow = r.headers().firstValue("Allow").map(a -> " Allow: " + a).orElse("");
    return r.statusCode() + " " + r.body() + allow;
  }

  private static final MethodDescriptor<HealthCheckRequest, HealthCheckResponse> CHECK = MethodDescriptor
      .<HealthCheckRequest, HealthCheckResponse>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("grpc.health.v1.Health/Check")
      .setRequestMarshaller(ProtoUtils.marshaller(HealthCheckRequest.getDefaultInstance()))
      .setResponseMarshaller(ProtoUtils.marshaller(HealthCheckResponse.getDefaultInstance())).build();

  /** grpc.health.v1.Health/Check for the empty service name, as grpc-go's health probes ask. */
  private static ServingStatus grpcHealth(ServerProcess s) throws InterruptedException {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(s.endpoint()).usePlaintext().build();
    try {
      return ClientCalls.blockingUnaryCall(channel, CHECK, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
          HealthCheckRequest.getDefaultInstance()).getStatus();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
