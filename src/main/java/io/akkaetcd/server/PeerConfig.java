package io.akkaetcd.server;

import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.raft.peer.PeerTransport;
import io.akkaetcd.tls.PeerSslEngineProvider;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Akka settings of a member with peers: Akka Cluster over Artery TCP (TLS for https:// peer
 * URLs), reachable at the first --initial-advertise-peer-urls. The first --listen-peer-urls is
 * the member's {@link io.akkaetcd.raft.peer.PeerPort}, which passes Artery's connections on to
 * Artery on a port of its own (any free one, on the same host). Every member
 * of the initial cluster is a seed node, in --initial-cluster's order (the same list on every
 * member, so the first one forms the Akka cluster and the others join it). Akka Cluster is the
 * transport and its gossip only: Raft alone decides who is a member, and nothing is downed
 * automatically but what Raft removed ({@link RemovedPeers}).
 */
final class PeerConfig {
  /** Room on top of an append's batch limit for one entry as large as the largest request. */
  private static final long FRAME_SLACK = 256 * 1024;

  private PeerConfig() {}

  static Map<String, Object> overrides(ServerConfig config, ClusterMembers members, long maxAppendBytes) {
    // This member's address is the one it advertises now (after MemberUpdate, the operator
    // restarts it with the new URL before its own log has caught up with the change).
    URI self = advertisedUrl(config, members);
    URI bind = listenUrl(config, members);
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("akka.actor.provider", "cluster");
    o.putAll(transport(config, self));
    o.put("akka.remote.artery.canonical.hostname", self.getHost());
    o.put("akka.remote.artery.canonical.port", self.getPort());
    o.put("akka.remote.artery.bind.hostname", bind.getHost());
    o.put("akka.remote.artery.bind.port", 0);
    // Artery gives up binding its port after 3 s (its default) and the member exits; a
    // starved machine needed longer (a secured chaos run at load 25). etcd's listener has no limit.
    o.put("akka.remote.artery.bind.bind-timeout", "30s");
    // An append carries up to maxAppendBytes of entries, and one entry may be as large as the
    // largest request on top of that.
    o.put("akka.remote.artery.advanced.maximum-frame-size", maxFrameBytes(config, maxAppendBytes) + "b");
    List<String> seeds = members.members().stream()
        .map(m -> PeerTransport.address(m.peerUrls().get(0))).toList();
    o.put("akka.cluster.seed-nodes", seeds);
    return o;
  }

  /** The largest peer message: an append's batch limit and one entry as large as the largest request. */
  static long maxFrameBytes(ServerConfig config, long maxAppendBytes) {
    return maxAppendBytes + config.maxRequestBytes() + FRAME_SLACK;
  }

  /** The peer URL this member is reached at: the first it advertises, or its member's first. */
  static URI advertisedUrl(ServerConfig config, ClusterMembers members) {
    return !config.initialAdvertisePeerUrls().isEmpty() ? config.initialAdvertisePeerUrls().get(0)
        : members.selfMember().orElseThrow().peerUrls().get(0);
  }

  /** The address the member's peer port listens on: its first --listen-peer-urls. */
  static URI listenUrl(ServerConfig config, ClusterMembers members) {
    return config.listenPeerUrls().isEmpty() ? advertisedUrl(config, members) : config.listenPeerUrls().get(0);
  }

  /** etcd's peer TLS flags by name, with what --peer-auto-tls needs (the data dir, the listen URLs). */
  static Map<String, String> peerTlsFlags(ServerConfig config) {
    Map<String, String> flags = new LinkedHashMap<>(config.peerTls().peerFlags());
    flags.put("data-dir", config.dataDir().toString());
    flags.put("listen-peer-urls", String.join(",", config.listenPeerUrls().stream().map(URI::toString).toList()));
    return flags;
  }

  /**
   * Artery's transport for a member whose peer URL is {@code self}: TCP for {@code http://}, TLS
   * over TCP for {@code https://}, with {@link PeerSslEngineProvider} and etcd's peer flags (one
   * transport: every peer message, snapshots included, goes over it).
   */
  static Map<String, Object> transport(ServerConfig config, URI self) {
    if (!self.getScheme().equals("https")) {
      return Map.of("akka.remote.artery.transport", "tcp");
    }
    Map<String, String> flags = peerTlsFlags(config);
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("akka.remote.artery.transport", "tls-tcp");
    o.put("akka.remote.artery.ssl.ssl-engine-provider", PeerSslEngineProvider.class.getName());
    o.put(PeerSslEngineProvider.CONFIG_PATH, flags);
    return o;
  }
}
