package io.akkaetcd.examples.election;

import akka.actor.typed.ActorSystem;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import io.akkaetcd.embed.EtcdClient;
import io.akkaetcd.server.EtcdServer;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * This node's embedded akka-etcd member: the one class that starts and stops it. Its settings are
 * etcd's flags, by name, under {@code akka-etcd} in the application's config.
 */
final class StoreMember implements AutoCloseable {
  private final EtcdServer server;

  private StoreMember(EtcdServer server) {
    this.server = server;
  }

  /**
   * Starts the member; it serves once {@link #ready()} completes. The member runs in an
   * ActorSystem of its own: {@code host} is the application's.
   */
  static StoreMember start(Config config, ActorSystem<?> host) {
    List<String> flags = new ArrayList<>();
    for (Map.Entry<String, ConfigValue> e : config.getConfig("akka-etcd").entrySet()) {
      if (Flags.isKnown(e.getKey())) {
        flags.add("--" + e.getKey());
        flags.add(String.valueOf(e.getValue().unwrapped()));
      }
    }
    return new StoreMember(EtcdServer.start(ServerConfig.fromFlags(Flags.parse(flags.toArray(String[]::new),
        Map.of()))));
  }

  CompletionStage<Void> ready() {
    return server.ready();
  }

  EtcdClient client() {
    return server.client();
  }

  /** Completes once the member has stopped, asked to or not. */
  CompletionStage<Void> whenTerminated() {
    return server.whenTerminated();
  }

  @Override
  public void close() {
    server.close();
  }
}
