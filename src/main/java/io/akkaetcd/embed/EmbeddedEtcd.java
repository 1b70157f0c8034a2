package io.akkaetcd.embed;

import akka.Done;
import akka.actor.typed.ActorSystem;
import io.akkaetcd.server.EtcdServer;
import io.akkaetcd.server.Faults;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One akka-etcd member embedded in an application (etcd's embed.Etcd): its store, its Raft member
 * and its client listeners, with an in-process {@link #client()}. The member restarts itself,
 * from the same data directory, when it must become a new Akka incarnation (another member
 * quarantined it; a member started alone got its first peer); {@link #client()} follows it.
 * It runs in an ActorSystem of its own or inside the host application's. It stops on
 * {@link #stop()}, {@link #close()}, its system's CoordinatedShutdown (a JVM's SIGTERM included),
 * when it was removed from the cluster, or by itself on a fatal error ({@link #whenTerminated()}
 * then fails).
 */
public final class EmbeddedEtcd implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedEtcd.class);

  private final EtcdConfig config;
  /** {@link Faults#NONE} but in tests. */
  private final Faults faults;
  /** The host application's system the member runs in, or null for a system of its own. */
  private final ActorSystem<?> host;
  /** The member's current incarnation; replaced only by {@link #restart}. */
  private final AtomicReference<EtcdServer> current = new AtomicReference<>();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Done> terminated = new CompletableFuture<>();
  /** The in-process client of the current incarnation; replaced with it. */
  private final AtomicReference<EtcdClient> currentClient = new AtomicReference<>();
  private final EtcdClient client = EtcdClient.following(currentClient::get);
  private volatile boolean stopping;

  private EmbeddedEtcd(EtcdConfig config, Faults faults, ActorSystem<?> host) {
    io.akkaetcd.os.NativeLevelDb.useCachedCopy(); // before any LevelDB opens: no copy of the library per start
    this.config = config;
    this.faults = faults;
    this.host = host;
    terminated.whenComplete((d, e) -> ready.completeExceptionally(
        new IllegalStateException("the member stopped before it served clients", e)));
  }

  /**
   * Starts a member in an ActorSystem of its own (named akka-etcd, configured by
   * akka-etcd.own-actor-system over {@link EtcdConfig#settings()}). Returns once the data
   * directory is open and the client URLs are bound; throws etcd's start-up errors
   * ({@link io.akkaetcd.errors.StartupException}).
   */
  public static EmbeddedEtcd start(EtcdConfig config) {
    return start(config, Faults.NONE);
  }

  /**
   * Internal API, for the launcher and tests' fault injection: {@link #start(EtcdConfig)} with
   * {@code faults} in every incarnation. Applications use {@link #start(EtcdConfig)}.
   */
  public static EmbeddedEtcd start(EtcdConfig config, Faults faults) {
    EmbeddedEtcd etcd = new EmbeddedEtcd(config, faults, null);
    etcd.run(etcd.startIncarnation());
    return etcd;
  }

  /**
   * Starts a member inside the host application's ActorSystem: its actors run under a guardian
   * of their own there, its Raft log in a journal of its own on its data directory, its client
   * listeners with the library's HTTP/2 settings; the library's tunables (akka-etcd.*) are read
   * from {@code host}'s config ({@link EtcdConfig#settings()} is not used). Stopping the member
   * leaves {@code host} running; {@code host}'s CoordinatedShutdown stops the member. Returns once
   * the data directory is open and the client URLs are bound; throws etcd's start-up errors. A
   * member with peers runs what its peers address (Artery at its peer URL) in a small system of
   * its own besides.
   */
  public static EmbeddedEtcd start(EtcdConfig config, ActorSystem<?> host) {
    EmbeddedEtcd etcd = new EmbeddedEtcd(config, Faults.NONE, java.util.Objects.requireNonNull(host, "host"));
    etcd.run(etcd.startIncarnation());
    return etcd;
  }

  private EtcdServer startIncarnation() {
    return host == null ? EtcdServer.start(config.serverConfig(), config.settings(), faults)
        : EtcdServer.startIn(host, config.serverConfig(), faults);
  }

  private void run(EtcdServer server) {
    currentClient.set(EtcdClient.create(server.services(), server.clientExecutor()));
    current.set(server);
    server.ready().thenRun(() -> ready.complete(null));
    server.whenTerminated().whenComplete((v, e) -> onTerminated(server));
  }

  private void onTerminated(EtcdServer server) {
    if (server.restartRequested() && !stopping) {
      // Not on the stopped system's own threads: the next incarnation starts a system of its own
      // (or, in a host's system, waits for its actors to start).
      new Thread(this::restart, "akka-etcd-restart").start();
    } else if (server.stoppedOnRequest()) {
      terminated.complete(Done.getInstance());
    } else {
      terminated.completeExceptionally(new MemberFailure("the member stopped on a fatal error (see the log)"));
    }
  }

  /** Starts the next incarnation from the same data directory; a start that fails ends the member. */
  private void restart() {
    log.warn("restarting the member as a new Akka incarnation");
    try {
      EtcdServer next = startIncarnation();
      run(next);
      if (stopping) {
        next.stop(); // stop() was called while it started
      }
    } catch (RuntimeException e) {
      terminated.completeExceptionally(e);
    }
  }

  /** Completes once the member serves clients (etcd's ReadyNotify); fails if it stopped before. */
  public CompletionStage<Void> ready() {
    return ready;
  }

  /** The in-process client; it calls the member's current incarnation. */
  public EtcdClient client() {
    return client;
  }

  /** The address each listen-client-url is bound to (the real port when 0 was asked); empty without listeners. */
  public List<InetSocketAddress> clientAddresses() {
    return current.get().clientAddresses();
  }

  public EtcdConfig config() {
    return config;
  }

  /** Stops the member: unbinds, stops its actors, closes its store. Completes as {@link #whenTerminated()}. */
  public CompletionStage<Done> stop() {
    stopping = true;
    current.get().stop();
    return terminated;
  }

  /**
   * Completes once the member has stopped for good (its store closed); fails if it stopped by
   * itself on a fatal error ({@link MemberFailure}) or could not start again after an internal
   * restart (with that start's error).
   */
  public CompletionStage<Done> whenTerminated() {
    return terminated;
  }

  /** Stops the member and waits until its store is closed. */
  @Override
  public void close() {
    try {
      stop().toCompletableFuture().join();
    } catch (java.util.concurrent.CompletionException e) {
      log.debug("the member had stopped on its own: {}", e.getCause().toString());
    }
  }

  /** The member stopped by itself: a vital actor failed (the log says which). */
  public static final class MemberFailure extends RuntimeException {
    MemberFailure(String message) {
      super(message);
    }
  }
}
