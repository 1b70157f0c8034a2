package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.settings.ServerSettings;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.errors.StartupException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Client listeners bound before the member's services exist: a request that comes then waits,
 * and fails when the start does; a taken address fails the start with etcd's error.
 */
class ClientListenersTest {
  private static ActorTestKit kit;

  @BeforeAll
  static void start() {
    kit = ActorTestKit.create("client-listeners", ConfigFactory.parseString("akka.loglevel = WARNING"));
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  private static ServerConfig member(String clientUrl) {
    return ServerConfig.fromFlags(Flags.parse(new String[] {"--name", "e1", "--listen-client-urls", clientUrl,
        "--advertise-client-urls", clientUrl, "--listen-peer-urls", "http://127.0.0.1:0",
        "--initial-advertise-peer-urls", "http://127.0.0.1:0", "--initial-cluster", "e1=http://127.0.0.1:0"},
        Map.of()));
  }

  private static ClientListeners.Early bindEarly(ServerConfig config) {
    return ClientListeners.bindEarly(config, ClientTls.resolve(config), kit.system(),
        () -> ServerSettings.create(kit.system().settings().config()));
  }

  @Test
  void aRequestBeforeTheServicesWaitsAndFailsWhenTheStartDoes() throws Exception {
    ClientListeners.Early early = bindEarly(member("http://127.0.0.1:0"));
    List<ServerBinding> bound = early.awaitBound();
    int port = bound.get(0).localAddress().getPort();
    CompletableFuture<HttpResponse<String>> answer = HttpClient.newHttpClient().sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
        HttpResponse.BodyHandlers.ofString());
    kit.createTestProbe().awaitAssert(java.time.Duration.ofSeconds(30), () -> {
      assertEquals(1, early.waiting());
      return null;
    });
    assertFalse(answer.isDone());
    early.abandon();
    assertEquals(500, answer.get(30, TimeUnit.SECONDS).statusCode());
  }

  @Test
  void aTakenAddressFailsWithEtcdsError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      ClientListeners.Early early = bindEarly(member("http://127.0.0.1:" + port));
      StartupException e = assertThrows(StartupException.class, early::awaitBound);
      assertEquals("listen tcp 127.0.0.1:" + port + ": bind: address already in use", e.getMessage());
      early.abandon();
    }
  }
}
