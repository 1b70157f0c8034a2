package io.akkaetcd.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import akka.actor.AbstractActor;
import akka.actor.ActorSystem;
import akka.actor.Props;
import akka.pattern.Patterns;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Artery's tls-tcp transport with {@link PeerSslEngineProvider}: two actor systems with
 * certificates of one CA talk; one whose CA the other does not trust gets no answer.
 */
class ArteryTlsTest {
  @TempDir
  Path dir;
  private final java.util.List<ActorSystem> systems = new java.util.ArrayList<>();

  static final class Echo extends AbstractActor {
    @Override
    public Receive createReceive() {
      return receiveBuilder().matchAny(m -> getSender().tell("echo " + m, getSelf())).build();
    }
  }

  private ActorSystem member(String name, TestCerts ca, TestCerts.Issued cert) {
    Config peer = ConfigFactory.parseMap(Map.of("peer-cert-file", cert.cert().toString(), "peer-key-file",
        cert.key().toString(), "peer-trusted-ca-file", ca.caFile().toString(), "peer-client-cert-auth", true));
    Config config = ConfigFactory.parseString("""
        akka.actor.provider = remote
        akka.loglevel = WARNING
        akka.remote.artery.transport = tls-tcp
        akka.remote.artery.canonical.hostname = "127.0.0.1"
        akka.remote.artery.canonical.port = 0
        akka.remote.artery.ssl.ssl-engine-provider = "io.akkaetcd.tls.PeerSslEngineProvider"
        """).withValue(PeerSslEngineProvider.CONFIG_PATH, peer.root())
        .withFallback(ConfigFactory.defaultReference());
    ActorSystem system = ActorSystem.create(name, config);
    systems.add(system);
    return system;
  }

  private static String ask(ActorSystem from, ActorSystem to, Duration timeout) throws Exception {
    String path = to.provider().getDefaultAddress() + "/user/echo";
    return (String) Patterns.ask(from.actorSelection(path), "hi", timeout).toCompletableFuture()
        .get(timeout.toMillis() + 2000, TimeUnit.MILLISECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    for (ActorSystem s : systems) {
      s.terminate();
    }
    for (ActorSystem s : systems) {
      s.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void membersTalkOverTlsAndAStrangerIsKeptOut() throws Exception {
    TestCerts ca = TestCerts.create(dir.resolve("ca"));
    ActorSystem a = member("a", ca, ca.server("member-a"));
    ActorSystem b = member("b", ca, ca.server("member-b"));
    a.actorOf(Props.create(Echo.class), "echo");
    assertEquals("echo hi", ask(b, a, Duration.ofSeconds(20)));

    TestCerts other = TestCerts.create(dir.resolve("other"), "other CA");
    ActorSystem stranger = member("stranger", other, other.server("stranger"));
    assertThrows(ExecutionException.class, () -> ask(stranger, a, Duration.ofSeconds(3)));
    assertEquals("echo hi", ask(b, a, Duration.ofSeconds(20)), "the members keep talking");
  }
}
