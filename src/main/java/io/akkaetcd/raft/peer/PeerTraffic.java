package io.akkaetcd.raft.peer;

/**
 * What the peer transport reports as it goes, for etcd's rafthttp series (sent and received bytes,
 * send failures, round trips, links gained and lost). Called from transport and scheduler threads:
 * implementations are thread-safe and take no lock.
 */
public interface PeerTraffic {
  /** Reports nothing (metrics off, or a member without peers). */
  PeerTraffic NONE = new PeerTraffic() { };

  /** A Raft message of {@code bytes} (its wire size) handed to Artery for {@code to}. */
  default void sent(long to, int bytes) { }

  /** A Raft message for a known peer not sent (link cut, transport closed). */
  default void sendFailed(long to) { }

  /** A Raft message of {@code bytes} received from {@code from}. */
  default void received(long from, int bytes) { }

  /** A probe came back from {@code peer} {@code nanos} after it was sent. */
  default void roundTrip(long peer, long nanos) { }

  /** The link with {@code peer} became active or inactive ({@link PeerStatusLog}'s judgement). */
  default void linkChanged(long peer, boolean active) { }

  /** An active link's member left the cluster: no longer a peer, not a lost link either. */
  default void removed(long peer) { }
}
