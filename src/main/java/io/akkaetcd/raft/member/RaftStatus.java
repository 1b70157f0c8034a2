package io.akkaetcd.raft.member;

import io.akkaetcd.raft.StateRole;

/**
 * What the rest of the server may know of this member's Raft state without asking the actor:
 * published by {@link RaftMember} after every Ready, read by the API for response headers and
 * Status. A snapshot in time; never used for decisions that need consensus. {@code firstLogIndex}
 * is the oldest entry still held in memory; {@code leaderElectedNanos} is when ({@link
 * System#nanoTime}) this member last learned of a new leader; {@code learnerMatches} is, on the
 * leader, how far each learner's log is known to match (empty elsewhere).
 */
public record RaftStatus(long term, long leader, StateRole role, long committedIndex, long firstLogIndex,
                         long leaderElectedNanos, java.util.Map<Long, Long> learnerMatches) {
  public static final RaftStatus INITIAL = new RaftStatus(0, 0, StateRole.FOLLOWER, 0, 1, 0, java.util.Map.of());

  public boolean isLeader() {
    return role == StateRole.LEADER;
  }
}
