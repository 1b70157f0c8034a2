package io.akkaetcd.server;

import io.akkaetcd.server.Flags.FlagException;

/**
 * The command line: etcd's flags in, a running member out. A malformed command line exits with
 * status 2, a value etcd's checks refuse with 1, as etcd 3.4 ({@link Flags.FlagException}).
 */
public final class Main {
  public static final String VERSION = "0.1.0";
  public static final String API_VERSION = "3.5";

  private Main() {}

  /** The system property that sizes the JDK's common pool; see {@link #ensureAsyncPool}. */
  static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  public static void main(String[] args) {
    ensureAsyncPool();
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
      LogFlags logging = LogFlags.fromFlags(flags.values());
      config = ServerConfig.fromFlags(flags.values());
      logging.apply();
      org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Flags.class);
      flags.warnings().forEach(log::warn);
    } catch (FlagException e) {
      System.err.print(e.report());
      System.exit(e.exitCode());
      return;
    }
    try {
      EtcdServer server = EtcdServer.start(config);
      server.whenTerminated().toCompletableFuture().join();
      while (server.restartRequested()) {
        // Quarantined by another member, or alone no more: start again, same data.
        org.slf4j.LoggerFactory.getLogger(Main.class).warn("restarting the member as a new Akka incarnation");
        server = EtcdServer.start(config);
        server.whenTerminated().toCompletableFuture().join();
      }
      if (!server.stoppedOnRequest()) {
        System.exit(1);
      }
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(Main.class).error("failed to start: {}", e.getMessage(), e);
      System.exit(1);
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
    if (System.getProperty(COMMON_POOL_PARALLELISM) == null) {
      int cores = Runtime.getRuntime().availableProcessors();
      System.setProperty(COMMON_POOL_PARALLELISM, Integer.toString(Math.max(2, cores - 1)));
    }
  }
}
