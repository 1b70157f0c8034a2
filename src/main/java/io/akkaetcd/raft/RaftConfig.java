package io.akkaetcd.raft;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A core's configuration. {@code voters} and {@code learners} are the membership it starts with
 * (the bootstrap, or the one recorded when it last stopped); {@code applied} is the
 * index the state machine has durably applied (entries up to it are never handed out again);
 * {@code random} draws election timeouts, so a seeded generator makes a run reproducible.
 */
public record RaftConfig(long id, List<Long> voters, List<Long> learners, int electionTick, int heartbeatTick, long applied,
                         int maxInflightMsgs, long maxSizePerMsg, boolean preVote, boolean checkQuorum,
                         RandomGenerator random) {
  public RaftConfig {
    voters = List.copyOf(voters);
    learners = List.copyOf(learners);
    if (id == 0) {
      throw new IllegalArgumentException("id must not be 0 (0 means none)");
    }
    if (heartbeatTick <= 0 || electionTick <= heartbeatTick) {
      throw new IllegalArgumentException("need 0 < heartbeatTick < electionTick");
    }
  }
}
