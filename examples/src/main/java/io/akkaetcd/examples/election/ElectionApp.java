package io.akkaetcd.examples.election;

import akka.Done;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorSystem;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.embed.EmbeddedEtcd;
import io.akkaetcd.embed.EtcdConfig;

/**
 * One node of the example: an Akka application with an akka-etcd member embedded. With the
 * member's in-process client, the nodes elect one of them to run a job ({@link Election},
 * {@link Job}) and every node applies the configuration under a prefix ({@link ConfigWatcher}).
 * Run three, each with its member's settings as system properties (docs/examples.md).
 */
public final class ElectionApp {
  private ElectionApp() {}

  public static void main(String[] args) {
    try {
      start(ConfigFactory.load());
    } catch (RuntimeException e) {
      e.printStackTrace();
      System.exit(1); // a node that cannot start must not linger half-started
    }
  }

  private static void start(Config config) {
    EtcdConfig etcd = EtcdConfig.fromConfig(config); // etcd's settings, by flag name, under akka-etcd
    Settings settings = Settings.from(config.getConfig("election-example"), etcd.name());
    ActorSystem<Node.Command> system = ActorSystem.create(Node.create(settings), "election-example", config);
    EmbeddedEtcd member;
    try {
      // The member runs in an ActorSystem of its own; EmbeddedEtcd.start(etcd, system) will run it
      // in the application's once the library offers that.
      member = EmbeddedEtcd.start(etcd);
    } catch (RuntimeException e) {
      system.terminate();
      throw e;
    }
    // The application stops its member on the way down, and cannot run on without it.
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "stop-etcd-member",
        () -> member.stop().exceptionally(e -> Done.getInstance()));
    member.whenTerminated().whenComplete((done, e) -> system.terminate());
    member.ready().thenRun(() -> system.tell(new Node.MemberReady(member.client())));
  }
}
