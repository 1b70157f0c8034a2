package io.akkaetcd.raft.peer;

import static net.logstash.logback.argument.StructuredArguments.kv;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's rafthttp peerStatus lines, once per change of a link's state as {@link PeerActivity}
 * judges it: "peer became active" (info) and "peer became inactive (message send to peer
 * failed)" (warn), the lost-peer warning operators watch. Called from one scheduled task.
 */
public final class PeerStatusLog {
  private static final Logger LOG = LoggerFactory.getLogger(PeerStatusLog.class);
  private final PeerActivity activity;
  private final String self;
  /** Each peer's state as last logged; a peer never heard from is logged when it first is. */
  private final Map<Long, Boolean> active = new HashMap<>();

  private final PeerTraffic traffic;

  public PeerStatusLog(PeerActivity activity, long self) {
    this(activity, self, PeerTraffic.NONE);
  }

  /** @param traffic told of each change logged (etcd's active_peers and disconnected_peers_total) */
  public PeerStatusLog(PeerActivity activity, long self, PeerTraffic traffic) {
    this.activity = activity;
    this.self = Long.toHexString(self);
    this.traffic = traffic;
  }

  /** Logs each of {@code peers} whose link changed state since the last call. */
  public synchronized void check(Set<Long> peers, long now) {
    // A member removed from the cluster is no peer any more: its link no longer counts as active.
    active.entrySet().removeIf(e -> {
      boolean removed = !peers.contains(e.getKey());
      if (removed && e.getValue()) {
        traffic.removed(e.getKey());
      }
      return removed;
    });
    for (long peer : peers) {
      boolean is = activity.activeSince(peer, now).isPresent();
      boolean was = Boolean.TRUE.equals(active.put(peer, is));
      if (is != was) {
        traffic.linkChanged(peer, is);
      }
      if (is && !was) {
        LOG.info("{} peer became active {}", self, kv("peer-id", Long.toHexString(peer)));
      } else if (!is && was) {
        LOG.warn("{} peer became inactive (message send to peer failed) {} {}", self,
            kv("peer-id", Long.toHexString(peer)), kv("error", "no message from the peer within the election timeout"));
      }
    }
  }
}
