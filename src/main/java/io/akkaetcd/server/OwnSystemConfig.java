package io.akkaetcd.server;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The config of an ActorSystem a member owns: the member's own settings (its data directory's
 * paths, its peer transport), over {@code akka-etcd.own-actor-system} (reference.conf, which an
 * application may override there), over the application's config. A host application's own Akka
 * settings are never changed: they are only the last fallback of the member's own system.
 */
public final class OwnSystemConfig {
  private OwnSystemConfig() {}

  /** The library's Akka settings for a system of its own, over {@code base}. */
  public static Config of(Config base) {
    return base.getConfig("akka-etcd.own-actor-system").withFallback(base);
  }

  /** {@link #of} with the paths of {@code memberDir} and the peer transport's settings on top. */
  static Config forMember(Config base, Path memberDir, Map<String, Object> peerSettings) {
    Map<String, Object> overrides = new LinkedHashMap<>(peerSettings);
    overrides.put("akka.persistence.journal.leveldb.dir", memberDir.resolve("wal").toString());
    overrides.put("akka.persistence.snapshot-store.local.dir", memberDir.resolve("snap").toString());
    return ConfigFactory.parseMap(overrides).withFallback(of(base));
  }
}
