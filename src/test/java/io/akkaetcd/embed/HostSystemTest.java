package io.akkaetcd.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorIdentity;
import akka.actor.ActorSelection;
import akka.actor.Identify;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.Behaviors;
import akka.pattern.Patterns;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.server.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A member inside a host application's ActorSystem whose config is the application's own, and
 * unlike the member's: a local provider, its own log level, HTTP/2 off for its servers, an
 * in-memory default journal, no CoordinatedShutdown at the JVM's exit.
 */
class HostSystemTest {
  @TempDir Path tmp;

  private static final ByteString KEY = ByteString.copyFromUtf8("hosted/k");

  /** The application's config: none of it may reach the member's listeners or journal. */
  private static final Config APPLICATION = ConfigFactory.parseString("""
      akka.actor.provider = local
      akka.loglevel = WARNING
      akka.http.server.enable-http2 = off
      akka.http.server.preview.enable-http2 = off
      akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
      akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off
      """).withFallback(ConfigFactory.load());

  private ActorSystem<Void> host;

  private ActorSystem<Void> newHost() {
    host = ActorSystem.create(Behaviors.empty(), "application", APPLICATION);
    return host;
  }

  @AfterEach
  void stopHost() throws Exception {
    if (host != null) {
      host.terminate();
      host.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static EtcdConfig lone(String name, Path dataDir) {
    String peer = "http://127.0.0.1:0";
    return EtcdConfig.builder().name(name).dataDir(dataDir)
        .listenClientUrls("http://127.0.0.1:0").advertiseClientUrls("http://127.0.0.1:0")
        .listenPeerUrls(peer).initialAdvertisePeerUrls(peer).initialCluster(name + "=" + peer).build();
  }

  @Test
  void servesInsideTheHostAndStopsWithoutIt() throws Exception {
    newHost();
    Path dir = tmp.resolve("h1");
    EmbeddedEtcd member = EmbeddedEtcd.start(lone("h1", dir), host);
    member.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertTrue(raftMemberOf(host).isPresent(), "the Raft member runs in the host's system");

    put(member, KEY, "in-process");
    try (Client grpc = grpcClient(member)) {
      // h2c on the member's listener although the host's config turns HTTP/2 off.
      assertEquals("in-process", grpc.getKVClient().get(bytes(KEY)).get(10, TimeUnit.SECONDS)
          .getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
      grpc.getKVClient().put(bytes(KEY), ByteSequence.from("over-grpc", StandardCharsets.UTF_8))
          .get(10, TimeUnit.SECONDS);
    }
    assertEquals("over-grpc", get(member, KEY));

    // A second member in the same host at the same time, on a fresh data directory: its own
    // journal and store, no key of the first; it serves on after the first stops.
    try (EmbeddedEtcd second = EmbeddedEtcd.start(lone("h2", tmp.resolve("h2")), host)) {
      second.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals(0, second.client().kv().get(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS).getCount());
      put(second, KEY, "second");
      assertEquals("over-grpc", get(member, KEY));

      member.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertFalse(host.getWhenTerminated().toCompletableFuture().isDone(), "the host system runs on");
      assertThrows(Exception.class, () -> new java.net.Socket().connect(member.clientAddresses().get(0), 1000),
          "the client listener is unbound");
      put(second, KEY, "second again");
      assertEquals("second again", get(second, KEY));
    }
    assertTrue(raftMemberOf(host).isEmpty(), "the members' actors stopped");
    // The first data directory again, in the same host: its journal and store were closed, the key is there.
    try (EmbeddedEtcd again = EmbeddedEtcd.start(lone("h1", dir), host)) {
      again.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertEquals("over-grpc", get(again, KEY));
      put(again, KEY, "after-restart");
      assertEquals("after-restart", get(again, KEY));
    }
  }

  @Test
  void hostCoordinatedShutdownStopsTheMember() throws Exception {
    Logger serverLog = (Logger) LoggerFactory.getLogger(EtcdServer.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    serverLog.addAppender(logged);
    try {
      newHost();
      Path dir = tmp.resolve("cs");
      EmbeddedEtcd member = EmbeddedEtcd.start(lone("cs", dir), host);
      member.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
      put(member, KEY, "before-shutdown");

      akka.actor.CoordinatedShutdown.get(host).runAll(akka.actor.CoordinatedShutdown.unknownReason())
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      member.whenTerminated().toCompletableFuture().get(1, TimeUnit.SECONDS); // done before the host's shutdown ended
      assertTrue(logged.list.stream().anyMatch(e -> e.getFormattedMessage().endsWith("stopped; store closed")),
          "the member logged its clean stop");
      host = null;

      // A new host on the same data directory: the write is there.
      newHost();
      try (EmbeddedEtcd again = EmbeddedEtcd.start(lone("cs", dir), host)) {
        again.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals("before-shutdown", get(again, KEY));
      }
    } finally {
      serverLog.detachAppender(logged);
    }
  }

  /** The Raft member of a member running in {@code system}, if one runs. */
  private static Optional<akka.actor.ActorRef> raftMemberOf(ActorSystem<?> system) throws Exception {
    ActorSelection raft = Adapter.toClassic(system).actorSelection("/system/akka-etcd-member-*/raft");
    try {
      ActorIdentity id = (ActorIdentity) Patterns.ask(raft, new Identify(1), Duration.ofSeconds(3))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      return id.getActorRef();
    } catch (java.util.concurrent.ExecutionException e) {
      return Optional.empty(); // a wildcard that matched a guardian without that child is not answered
    }
  }

  private static Client grpcClient(EmbeddedEtcd member) {
    InetSocketAddress a = member.clientAddresses().get(0);
    return Client.builder().endpoints("http://127.0.0.1:" + a.getPort()).build();
  }

  private static ByteSequence bytes(ByteString s) {
    return ByteSequence.from(s.toByteArray());
  }

  private static void put(EmbeddedEtcd member, ByteString key, String value) throws Exception {
    member.client().kv().put(key, ByteString.copyFromUtf8(value)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static String get(EmbeddedEtcd member, ByteString key) throws Exception {
    return member.client().kv().get(key).toCompletableFuture().get(10, TimeUnit.SECONDS)
        .getKvs(0).getValue().toStringUtf8();
  }
}
