package io.akkaetcd.server;

import akka.Done;
import akka.actor.Cancellable;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Adapter;
import akka.actor.typed.javadsl.Behaviors;
import com.typesafe.config.Config;
import io.akkaetcd.raft.peer.PeerTransport;
import akka.http.javadsl.ServerBinding;
import io.akkaetcd.raft.storage.MemberPersistence;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where one incarnation's actors run, and how they stop: an ActorSystem of its own
 * ({@link Own}: the launcher, {@code EmbeddedEtcd.start(config)}), or a guardian actor inside a
 * host application's system ({@link Hosted}), whose subtree is the member; a hosted member with
 * peers has a small system of its own besides, where its Artery runs.
 */
abstract sealed class MemberHome {
  /** How long unbinding waits for requests in flight before it closes their connections. */
  static final Duration UNBIND_DEADLINE = Duration.ofSeconds(3);

  /** The bound client listeners; set once they are bound ({@link #listening}). */
  volatile List<ServerBinding> bindings = List.of();

  /** Records the bound client listeners, which stop with the member. */
  void listening(List<ServerBinding> bound) {
    bindings = bound;
  }

  abstract ActorSystem<?> system();

  /** Where Artery runs and peers address this member's endpoints. */
  abstract ActorSystem<?> peerSystem();

  /** Stops the member in order: unbind the listeners, stop the actors. Idempotent. */
  abstract void stop();

  /** Stops the member at once: it was removed, must restart, or a vital actor failed. */
  abstract void terminate();

  /** Completes once every actor of the member has stopped and its journal is closed. */
  abstract CompletionStage<?> whenTerminated();

  /** A member in an ActorSystem of its own: its CoordinatedShutdown stops it (a JVM's SIGTERM too). */
  static final class Own extends MemberHome {
    private final ActorSystem<Void> system;

    Own(ActorSystem<Void> system) {
      this.system = system;
    }

    @Override
    ActorSystem<?> system() {
      return system;
    }

    @Override
    ActorSystem<?> peerSystem() {
      return system;
    }

    /** The listeners unbind in the system's CoordinatedShutdown, before the actors stop. */
    @Override
    void listening(List<ServerBinding> bound) {
      super.listening(bound);
      bound.forEach(b -> b.addToCoordinatedShutdown(UNBIND_DEADLINE, system));
    }

    @Override
    void stop() {
      CoordinatedShutdown.get(system).runAll(CoordinatedShutdown.unknownReason());
    }

    @Override
    void terminate() {
      system.terminate();
    }

    @Override
    CompletionStage<?> whenTerminated() {
      return system.getWhenTerminated();
    }
  }

  /**
   * A member inside a host's ActorSystem, under a guardian of its own among the host's system
   * actors. Stopping it unbinds its listeners, stops that subtree, closes its journal and
   * terminates its peer system if it has one; the host system runs on. The host's
   * CoordinatedShutdown stops it too.
   */
  static final class Hosted extends MemberHome {
    private static final AtomicLong GUARDIANS = new AtomicLong();

    private final ActorSystem<?> host;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean unbindStarted = new AtomicBoolean();
    private final CompletableFuture<Void> unbound = new CompletableFuture<>();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private volatile ActorRef<Void> guardian;
    /** The Raft member's journal and snapshot store; set by the guardian as it starts. */
    volatile MemberPersistence persistence;
    /** A member with peers: the small system of its own where its Artery runs; else null. */
    private volatile ActorSystem<Void> peers;

    /** {@code guardianStopped}: completed by the member's guardian once it (its children first) stopped. */
    Hosted(ActorSystem<?> host, CompletionStage<Void> guardianStopped) {
      this.host = host;
      guardianStopped.thenCompose(v -> unbind())
          .thenCompose(v -> persistence == null ? CompletableFuture.completedFuture(null) : persistence.close())
          .thenCompose(v -> {
            if (peers == null) {
              return CompletableFuture.completedFuture(null);
            }
            peers.terminate();
            return peers.getWhenTerminated();
          })
          .whenComplete((v, e) -> terminated.complete(null));
    }

    /** Starts {@code guardian} as the member's root, among the host's system actors. */
    void spawn(Behavior<Void> behavior) {
      guardian = host.systemActorOf(behavior, "akka-etcd-member-" + GUARDIANS.incrementAndGet(), Props.empty());
    }

    /**
     * Runs {@code stop} (which completes once the store is closed) in the host's
     * CoordinatedShutdown, after the host's own services stopped (they may still call the
     * member) and before its cluster and system go.
     */
    void stopWithHost(Supplier<CompletionStage<Void>> stop, CompletionStage<Void> stopped) {
      Cancellable task = CoordinatedShutdown.get(host).addCancellableTask(
          CoordinatedShutdown.PhaseBeforeClusterShutdown(), guardian.path().name(),
          () -> stop.get().thenApply(v -> Done.getInstance()));
      stopped.thenRun(task::cancel);
    }

    /**
     * Starts the member's peer system with {@code config} and runs {@code peerFacing} in its
     * guardian as it starts; returns what that gave. Blocks until then (the member's guardian,
     * starting, calls it: the Raft member needs its transport).
     */
    <T> T startPeerSystem(Function<ActorContext<?>, T> peerFacing, Config config) {
      CompletableFuture<T> started = new CompletableFuture<>();
      peers = ActorSystem.create(Behaviors.setup(ctx -> {
        try {
          started.complete(peerFacing.apply(ctx));
        } catch (RuntimeException e) {
          started.completeExceptionally(e);
          throw e;
        }
        return Behaviors.empty();
      }), PeerTransport.SYSTEM, config);
      return started.join();
    }

    @Override
    ActorSystem<?> system() {
      return host;
    }

    @Override
    ActorSystem<?> peerSystem() {
      return peers != null ? peers : host;
    }

    @Override
    void stop() {
      if (stopping.compareAndSet(false, true)) {
        unbind().thenRun(() -> Adapter.toClassic(host).stop(Adapter.toClassic(guardian)));
      }
    }

    @Override
    void terminate() {
      stop();
    }

    @Override
    CompletionStage<?> whenTerminated() {
      return terminated;
    }

    /** Unbinds every listener once, closing connections still open after {@link #UNBIND_DEADLINE}. */
    private CompletionStage<Void> unbind() {
      if (unbindStarted.compareAndSet(false, true)) {
        CompletableFuture.allOf(bindings.stream()
            .map(b -> b.terminate(UNBIND_DEADLINE).toCompletableFuture()).toArray(CompletableFuture[]::new))
            .whenComplete((v, e) -> unbound.complete(null));
      }
      return unbound;
    }
  }
}
