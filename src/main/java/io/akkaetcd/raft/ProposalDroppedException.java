package io.akkaetcd.raft;

/** A proposal the core cannot take now: no leader is known, or this member cannot accept it. */
public final class ProposalDroppedException extends RuntimeException {
  public ProposalDroppedException(String why) {
    super(why, null, false, false);
  }
}
