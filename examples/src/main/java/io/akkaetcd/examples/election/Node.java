package io.akkaetcd.examples.election;

import akka.actor.typed.Behavior;
import akka.actor.typed.SupervisorStrategy;
import akka.actor.typed.javadsl.Behaviors;
import io.akkaetcd.embed.EtcdClient;

/** The application's guardian: once its member serves, it starts the election and the config watch. */
final class Node {
  private Node() {}

  sealed interface Command {}

  /** The embedded member serves clients; {@code client} is its in-process client. */
  record MemberReady(EtcdClient client) implements Command {}

  static Behavior<Command> create(Settings settings) {
    return Behaviors.setup(ctx -> Behaviors.receive(Command.class)
        .onMessage(MemberReady.class, ready -> {
          ctx.spawn(restarting(ConfigWatcher.create(ready.client(), settings.configPrefix())), "config-watcher");
          ctx.spawn(restarting(Election.create(ready.client(), settings)), "election");
          Report.ready(settings.name());
          return Behaviors.empty();
        })
        .build());
  }

  private static <T> Behavior<T> restarting(Behavior<T> behavior) {
    return Behaviors.supervise(behavior).onFailure(SupervisorStrategy.restart());
  }
}
