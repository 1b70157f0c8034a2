package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OwnSystemStartTest {
  private static final String CONFIG = "akka.loglevel = WARNING\nakka.actor.provider = local";

  @Test
  void guardianRunsTheBehaviourHandedOverAfterTheSystemStarted() throws Exception {
    CompletableFuture<String> ranIn = new CompletableFuture<>();
    OwnSystemStart start = OwnSystemStart.begin("own-start", () -> ConfigFactory.parseString(CONFIG));
    assertFalse(ranIn.isDone());
    ActorSystem<Void> system = start.run(Behaviors.setup(ctx -> {
      ranIn.complete(ctx.getSystem().name());
      return Behaviors.empty();
    }));
    try {
      assertEquals("own-start", ranIn.get(30, TimeUnit.SECONDS));
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void anAbandonedStartStopsItsSystem() throws Exception {
    CompletableFuture<ActorSystem<Void>> started = new CompletableFuture<>();
    OwnSystemStart start = OwnSystemStart.begin("own-abandoned", () -> ConfigFactory.parseString(CONFIG));
    start.abandon();
    // The hand-over after an abandon finds the guardian stopped: the system terminates by itself.
    ActorSystem<Void> system = start.run(Behaviors.setup(ctx -> {
      started.complete(null);
      return Behaviors.empty();
    }));
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertFalse(started.isDone());
  }
}
