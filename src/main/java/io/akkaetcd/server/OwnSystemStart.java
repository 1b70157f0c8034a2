package io.akkaetcd.server;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.Config;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * A member's own ActorSystem, started on a thread of its own while the bootstrap opens the store
 * and recovers from it: the system's start was about a fifth of a member's (issue #32). Its
 * guardian becomes the member's behaviour once {@link #run} hands that over, or stops at once
 * after {@link #abandon}; until then the guardian's first message waits on a dispatcher thread.
 * Confined to MemberBootstrap.
 */
final class OwnSystemStart {
  private final CompletableFuture<Behavior<Void>> guardian = new CompletableFuture<>();
  private final CompletableFuture<ActorSystem<Void>> system;

  private OwnSystemStart(String name, Supplier<Config> settings) {
    // The thread inherits the caller's context class loader, which Akka reads (etcdmain's).
    system = DaemonThread.supply("akka-etcd-system-start",
        () -> ActorSystem.create(Behaviors.setup(ctx -> guardian.join()), name, settings.get()));
  }

  /** Starts the system named {@code name} with the config {@code settings} gives, on a new thread. */
  static OwnSystemStart begin(String name, Supplier<Config> settings) {
    return new OwnSystemStart(name, settings);
  }

  /** Hands {@code behavior} to the guardian; the started system, or what failed its start. */
  ActorSystem<Void> run(Behavior<Void> behavior) {
    guardian.complete(behavior);
    try {
      return system.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /** The bootstrap failed before {@link #run}: the guardian stops, and with it the system. */
  void abandon() {
    if (guardian.complete(Behaviors.stopped())) {
      system.thenAccept(ActorSystem::terminate);
    }
  }
}
