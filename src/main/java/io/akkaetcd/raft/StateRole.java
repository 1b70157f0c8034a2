package io.akkaetcd.raft;

/** A member's role; PRE_CANDIDATE is the pre-vote phase (Raft thesis §9.6). */
public enum StateRole { FOLLOWER, PRE_CANDIDATE, CANDIDATE, LEADER }
