package io.akkaetcd.raft.peer;

import io.akkaetcd.proto.raftpb.RaftMessage;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * This member's Raft streams, one to each peer ({@link StreamOut}), following membership changes.
 * A Raft message to a peer goes over its stream when that is up; otherwise the caller sends it
 * by Artery. Why a stream of its own: a one-way message through Artery over Akka IO passes four
 * threads on the way and costs 100–200 µs here, four of them on a write through a follower; a
 * stream read and written by a thread at each end costs about a third of that
 * (loadtest/RESULTS.md, 2026-11-28, morning).
 */
public final class RaftStreams {
  /** etcd's ConnWriteTimeout: a write blocked this long means a dead link, and the stream is dialed again. */
  static final long STALL_NANOS = 5_000_000_000L;

  private final StreamSockets sockets;
  private final PeerTraffic traffic;
  private final Map<Long, StreamOut> streams = new HashMap<>();
  private volatile Map<Long, StreamOut> current = Map.of();
  private boolean closed;

  public RaftStreams(Map<Long, URI> peerUrls, StreamSockets sockets, PeerTraffic traffic) {
    this.sockets = sockets;
    this.traffic = traffic;
    update(peerUrls);
  }

  /** The peers after a membership change: every other member's first peer URL, by member id. */
  public synchronized void update(Map<Long, URI> peerUrls) {
    if (closed) {
      return;
    }
    streams.entrySet().removeIf(e -> {
      if (!peerUrls.containsKey(e.getKey())) {
        e.getValue().close();
        return true;
      }
      return false;
    });
    peerUrls.forEach((id, url) -> {
      InetSocketAddress address = InetSocketAddress.createUnresolved(url.getHost(), url.getPort());
      StreamOut out = streams.get(id);
      if (out == null) {
        streams.put(id, new StreamOut(id, address, sockets, traffic));
      } else {
        out.moveTo(address);
      }
    });
    current = Map.copyOf(streams);
  }

  /** Queues {@code w} on the stream to {@code to}; false when that stream is not up (send it another way). */
  public boolean send(long to, RaftMessage w) {
    StreamOut out = current.get(to);
    return out != null && out.offer(w);
  }

  /** Closes streams whose write has been blocked for etcd's write timeout; called periodically. */
  public void closeStalled() {
    long now = System.nanoTime();
    current.values().forEach(out -> out.closeIfStalled(now, STALL_NANOS));
  }

  public synchronized void close() {
    closed = true;
    streams.values().forEach(StreamOut::close);
    streams.clear();
    current = Map.of();
  }
}
