package io.akkaetcd.server;

import io.akkaetcd.cluster.MemberId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lines a member logs once it serves clients, each once per start. The first two carry etcd
 * 3.4's words ("enabled capabilities for version", "published local member to cluster"): etcd's
 * own e2e framework, and scripts written against etcd, wait for them before using a member.
 */
final class ReadyLog {
  private static final Logger log = LoggerFactory.getLogger(EtcdServer.class);

  private ReadyLog() {}

  /**
   * Logs that {@code self} serves. {@code alone}: a member started alone publishes nothing
   * through Raft; it is listed with its name and client URLs as bootstrapped.
   */
  static void serving(MemberId self, boolean alone, String clusterVersion, ServerConfig config, long clusterId) {
    log.info("{} enabled capabilities for version {}", self, majorMinor(clusterVersion));
    if (alone) {
      log.info("{} published local member to cluster as bootstrapped (name {}, client URLs {}; alone, no Raft entry)",
          self, config.name(), config.advertiseClientUrls());
    } else {
      log.info("{} published local member to cluster through raft (name {}, client URLs {})",
          self, config.name(), config.advertiseClientUrls());
    }
    log.info("{} serving client requests on {} (cluster {}, data dir {})", self, config.listenClientUrls(),
        Long.toHexString(clusterId), config.dataDir());
  }

  /** etcd logs the cluster version as major.minor ("3.4"). */
  static String majorMinor(String version) {
    String[] parts = version.split("\\.");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
  }
}
