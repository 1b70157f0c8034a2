package io.akkaetcd.raft.peer;

/**
 * Which peers this member exchanges messages with. Every message to and from a peer crosses it at
 * this member's edge (Raft, probes, snapshots, asks), so a gate that blocks a peer acts as a
 * network partition does to Raft. Production members use {@link #OPEN}; tests inject others
 * through the server's test-only start path.
 */
public interface PeerGate {
  PeerGate OPEN = memberId -> false;

  /** True if messages to and from {@code memberId} are dropped. */
  boolean blocked(long memberId);
}
