package io.akkaetcd.raft;

/** The state that must be durable before any message that depends on it is sent (Raft §5, Figure 2). */
public record HardState(long term, long vote, long commit) {
  public static final HardState EMPTY = new HardState(0, 0, 0);
}
