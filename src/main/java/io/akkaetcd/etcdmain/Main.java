package io.akkaetcd.etcdmain;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.akkaetcd.embed.EmbeddedEtcd;
import io.akkaetcd.embed.EtcdConfig;
import io.akkaetcd.errors.StartupException;
import io.akkaetcd.os.NativeLevelDb;
import io.akkaetcd.server.DaemonThread;
import io.akkaetcd.server.Faults;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.Flags.FlagException;
import io.akkaetcd.server.ListenUrls;
import io.akkaetcd.server.LogFlags;
import io.akkaetcd.server.EtcdServer;
import io.akkaetcd.server.ServerConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.LoggerFactory;

/**
 * The command line (etcd's etcdmain): etcd's flags in, a member started through the embedding API
 * out. A malformed command line exits with
 * status 2, a value etcd's checks refuse with 1, as etcd 3.4 ({@link Flags.FlagException}).
 */
public final class Main {
  public static final String VERSION = "0.1.0";
  public static final String API_VERSION = "3.5";

  private Main() {}

  public static void main(String[] args) {
    run(args, Faults.NONE);
  }

  /** The launcher; {@code faults} is {@link Faults#NONE} but in tests' launcher (FaultyMain, test code). */
  public static void run(String[] args, Faults faults) {
    NativeLevelDb.useCachedCopy(); // before any LevelDB opens: no copy of the library per start
    if (args.length > 0 && args[0].equals("snapshot")) {
      // etcdctl's (etcdutl's) snapshot restore and status, over this server's own store format.
      System.exit(SnapshotCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
      return;
    }
    ensureAsyncPool();
    // Before anything reads config or starts an ActorSystem: both use the context class loader.
    Thread.currentThread().setContextClassLoader(new AkkaManifestsOnly(Main.class.getClassLoader()));
    // Parsing every reference.conf (about 6 % of a start, docs/deploy.md): while flags and logging are set up.
    CompletableFuture<Config> settings = DaemonThread.supply("akka-etcd-config", Main::launcherConfig);
    ServerConfig config;
    try {
      Flags.Parsed flags = Flags.parseAll(args, System.getenv());
      if (flags.help()) {
        System.out.print(Flags.usage());
        return;
      }
      if (flags.version()) {
        System.out.println("akka-etcd Version: " + VERSION);
        System.out.println("API Version: " + API_VERSION);
        System.out.println("Java Version: " + System.getProperty("java.version"));
        System.out.println("Akka Version: " + akka.Version.current());
        return;
      }
      Flags.checkClientUrlsAdvertised(flags);
      LogFlags logging = LogFlags.fromFlags(flags.values());
      config = ServerConfig.fromFlags(flags.values());
      // A port clash, found before logging and the config are set up (the goal: reported within 1 s).
      StartupException early = null;
      try {
        ListenUrls.checkEarly(config);
      } catch (StartupException e) {
        early = e;
      }
      logging.apply();
      org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Flags.class);
      flags.warnings().forEach(log::warn);
      if (early != null) {
        startupFailed(early);
        return;
      }
    } catch (FlagException e) {
      System.err.print(e.report());
      System.exit(e.exitCode());
      return;
    }
    AtomicReference<EmbeddedEtcd> running = new AtomicReference<>();
    StopSignals.install(() -> {
      EmbeddedEtcd member = running.get();
      if (member != null) {
        member.stop();
      }
      awaitStopped(member);
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> awaitStopped(running.get()), "akka-etcd-shutdown"));
    try {
      // Restarts after a quarantine, or when alone no more, happen inside (same data).
      EmbeddedEtcd member = EmbeddedEtcd.start(EtcdConfig.fromServerConfig(config, settings.join()), faults);
      running.set(member);
      member.whenTerminated().toCompletableFuture().join();
    } catch (StartupException e) {
      startupFailed(e);
    } catch (CompletionException e) {
      // Stopped by itself: a vital actor failed (logged already), or a restart could not start.
      if (e.getCause() instanceof StartupException s) {
        startupFailed(s);
      } else if (!(e.getCause() instanceof EmbeddedEtcd.MemberFailure)) {
        LoggerFactory.getLogger(Main.class).error("failed to start: {}", e.getCause().getMessage(), e.getCause());
      }
      System.exit(1);
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(Main.class).error("failed to start: {}", e.getMessage(), e);
      System.exit(1);
    }
  }

  /** As etcd's fatal start-up errors: one line, then exit 1. */
  private static void startupFailed(StartupException e) {
    LoggerFactory.getLogger("etcdmain").error(e.getMessage());
    System.exit(1);
  }

  /**
   * The launcher's config: -D overrides, then this application.conf (packaged beside Main, not at
   * the jar's root), then every reference.conf (akka-etcd's defaults, Akka's).
   */
  static Config launcherConfig() {
    return ConfigFactory.load(ConfigFactory.parseResources(Main.class, "application.conf"));
  }

  /** How long the JVM's exit waits for the member to close its store. */
  private static final long STOP_WAIT_SECONDS = 20;

  /**
   * Holds the caller until the member has closed its store and said so (at most {@link
   * #STOP_WAIT_SECONDS}): after SIGINT or SIGTERM ({@link StopSignals}), and in a shutdown hook at
   * any other JVM exit, where Akka's own hook stops the actor system and the exit otherwise raced it.
   */
  private static void awaitStopped(EmbeddedEtcd server) {
    if (server == null) {
      return;
    }
    try {
      server.whenTerminated().toCompletableFuture().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LoggerFactory.getLogger(Main.class).warn("the member did not stop cleanly: {}", e.toString());
    }
  }

  /**
   * With fewer than 3 cores the JDK sizes its common pool to 1, and then every CompletableFuture
   * "async" step without an executor starts a new thread. Akka gRPC's generated handlers take such a
   * step for each request (a Scala future's thenCompose), which on a 2-core machine cost more CPU than
   * the whole put path. A common pool of at least 2 keeps those steps on pooled threads. This must run
   * before anything touches ForkJoinPool; an explicit -D setting wins.
   */
  static void ensureAsyncPool() {
    if (System.getProperty(EtcdServer.COMMON_POOL_PARALLELISM) == null) {
      int cores = Runtime.getRuntime().availableProcessors();
      System.setProperty(EtcdServer.COMMON_POOL_PARALLELISM, Integer.toString(Math.max(2, cores - 1)));
    }
  }
}
