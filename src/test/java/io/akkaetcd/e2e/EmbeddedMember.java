package io.akkaetcd.e2e;

import io.akkaetcd.embed.EmbeddedEtcd;
import io.akkaetcd.embed.EtcdConfig;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An akka-etcd member embedded in the test JVM on free loopback ports, with a jetcd client, that
 * can be restarted on the same data directory (same ports, same identity). Public for the
 * contract tests of other packages (the in-process client's).
 */
public final class EmbeddedMember implements AutoCloseable {
  private final Path dataDir;
  private final int port = Ports.free();
  private final int peerPort = Ports.free();
  private final List<String> extraFlags;
  private EmbeddedEtcd server;
  private Client client;

  /** {@code extraFlags}: etcd flags and their values, in pairs ("--max-txn-ops", "8"). */
  public EmbeddedMember(String... extraFlags) {
    try {
      this.dataDir = Files.createTempDirectory("embedded-member");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.extraFlags = List.of(extraFlags);
    start();
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public EmbeddedEtcd server() {
    return server;
  }

  public Client client() {
    return client;
  }

  /** Stops the member (and its client) and starts it again on the same data directory. */
  void restart() {
    stop();
    start();
  }

  /** Restarts only the member: its client stays and must reconnect by itself. */
  void restartServer() {
    server.close();
    startServer();
  }

  private void start() {
    startServer();
    client = Client.builder().endpoints(url()).build();
  }

  private void startServer() {
    String peer = "http://127.0.0.1:" + peerPort;
    EtcdConfig.Builder config = EtcdConfig.builder().name("e1").dataDir(dataDir)
        .listenClientUrls(url()).advertiseClientUrls(url())
        .listenPeerUrls(peer).initialAdvertisePeerUrls(peer).initialCluster("e1=" + peer);
    for (int i = 0; i < extraFlags.size(); i += 2) {
      config.flag(extraFlags.get(i).replaceFirst("^--", ""), extraFlags.get(i + 1));
    }
    server = EmbeddedEtcd.start(config.build());
    // As etcd's embed users wait on ReadyNotify: a leader is known and the member is published,
    // so /health and has_leader already answer as a serving member's.
    try {
      server.ready().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      server.close();
      throw new IllegalStateException("the member did not become ready within 60 s", e);
    }
  }

  private void stop() {
    client.close();
    server.close();
  }

  /** Stops the member and deletes its data directory. */
  @Override
  public void close() {
    stop();
    ServerProcess.deleteTree(dataDir);
  }
}
