package io.akkaetcd.examples.election;

import akka.Done;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorSystem;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.CompletableFuture;

/**
 * One node of the example: an Akka application with an akka-etcd member embedded. With the
 * member's in-process client, the nodes elect one of them to run a job ({@link Election},
 * {@link Job}) and every node applies the configuration under a prefix ({@link ConfigWatcher}).
 * Run three, each with its member's flags as system properties (docs/examples.md).
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
    Settings settings = Settings.from(config);
    ActorSystem<Node.Command> system = ActorSystem.create(Node.create(settings), "election-example", config);
    StoreMember member = StoreMember.start(config, system);
    // The application stops its member on the way down; it cannot run on without it.
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "stop-etcd-member",
        () -> CompletableFuture.runAsync(member::close).thenApply(v -> Done.getInstance()));
    member.whenTerminated().thenRun(system::terminate);
    member.ready().thenRun(() -> system.tell(new Node.MemberReady(member.client())));
  }
}
