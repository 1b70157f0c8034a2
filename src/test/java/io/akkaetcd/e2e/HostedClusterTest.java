package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import com.google.protobuf.ByteString;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.embed.EmbeddedEtcd;
import io.akkaetcd.embed.EtcdConfig;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three members with peers inside one host application's ActorSystem (a local one: no remoting of
 * its own); each member's peer side runs in a small system of its own, Artery at its peer URL.
 */
class HostedClusterTest {
  @TempDir Path tmp;

  private static final ByteString KEY = ByteString.copyFromUtf8("hosted-cluster/k");

  @Test
  void aClusterOfMembersInsideOneHostReplicatesAndOutlivesAMember() throws Exception {
    ActorSystem<Void> host = ActorSystem.create(Behaviors.empty(), "application", ConfigFactory.parseString("""
        akka.actor.provider = local
        akka.loglevel = WARNING
        akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off
        """).withFallback(ConfigFactory.load()));
    List<EmbeddedEtcd> members = new ArrayList<>();
    try {
      String[] names = {"a", "b", "c"};
      int[] clientPorts = {Ports.free(), Ports.free(), Ports.free()};
      int[] peerPorts = {Ports.free(), Ports.free(), Ports.free()};
      StringBuilder cluster = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        cluster.append(i == 0 ? "" : ",").append(names[i]).append("=http://127.0.0.1:").append(peerPorts[i]);
      }
      for (int i = 0; i < 3; i++) {
        String client = "http://127.0.0.1:" + clientPorts[i];
        String peer = "http://127.0.0.1:" + peerPorts[i];
        members.add(EmbeddedEtcd.start(EtcdConfig.builder().name(names[i]).dataDir(tmp.resolve(names[i]))
            .listenClientUrls(client).advertiseClientUrls(client)
            .listenPeerUrls(peer).initialAdvertisePeerUrls(peer).initialCluster(cluster.toString())
            .heartbeatInterval(java.time.Duration.ofMillis(100))
            .electionTimeout(java.time.Duration.ofMillis(1000)).build(), host));
      }
      for (EmbeddedEtcd m : members) {
        m.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
      }
      put(members.get(0), "one");
      assertEquals("one", get(members.get(1)));
      assertEquals("one", get(members.get(2)));
      try (Client grpc = Client.builder().endpoints("http://127.0.0.1:" + clientPorts[2]).build()) {
        assertEquals("one", grpc.getKVClient().get(ByteSequence.from(KEY.toByteArray())).get(20, TimeUnit.SECONDS)
            .getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
      }

      // One member stops; the other two keep a quorum, in the same host, which runs on.
      members.get(0).stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertFalse(host.getWhenTerminated().toCompletableFuture().isDone(), "the host system runs on");
      putUntilCommitted(members.get(1), "two");
      assertEquals("two", get(members.get(2)));
    } finally {
      for (EmbeddedEtcd m : members) {
        m.close();
      }
      host.terminate();
      host.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void put(EmbeddedEtcd member, String value) throws Exception {
    member.client().kv().put(KEY, ByteString.copyFromUtf8(value)).toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  /** Puts, retrying while the remaining members elect a leader (the stopped one may have led). */
  private static void putUntilCommitted(EmbeddedEtcd member, String value) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        put(member, value);
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  private static String get(EmbeddedEtcd member) throws Exception {
    return member.client().kv().get(KEY).toCompletableFuture().get(20, TimeUnit.SECONDS)
        .getKvs(0).getValue().toStringUtf8();
  }
}
