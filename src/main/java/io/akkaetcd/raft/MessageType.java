package io.akkaetcd.raft;

/**
 * Messages between members (names after the Raft paper's RPCs) and the local ones a member
 * gives itself ({@link #HUP} starts an election, {@link #BEAT} a heartbeat round,
 * {@link #CHECK_QUORUM} the leader's lease check, {@link #TRANSFER_LEADER} the start of a
 * leadership transfer). Local messages never leave the core. {@link #TIMEOUT_NOW} tells a
 * follower to campaign at once (Raft thesis §3.10). {@link #SNAPSHOT} asks the leader's driver to
 * stream a follower the state machine (Raft §7); it carries the leader's compaction point. The
 * driver answers with {@link RaftCore#reportSnapshot}, and the follower's driver installs what it
 * received through {@link RaftCore#installSnapshot}.
 */
public enum MessageType {
  HUP, BEAT, CHECK_QUORUM, TRANSFER_LEADER, PROPOSE,
  APPEND_ENTRIES, APPEND_ENTRIES_RESPONSE,
  REQUEST_VOTE, REQUEST_VOTE_RESPONSE,
  REQUEST_PRE_VOTE, REQUEST_PRE_VOTE_RESPONSE,
  HEARTBEAT, HEARTBEAT_RESPONSE,
  READ_INDEX, READ_INDEX_RESPONSE,
  TIMEOUT_NOW,
  SNAPSHOT;

  /** The response type of a vote request of this kind. */
  MessageType voteResponse() {
    return this == REQUEST_PRE_VOTE ? REQUEST_PRE_VOTE_RESPONSE : REQUEST_VOTE_RESPONSE;
  }
}
