package io.akkaetcd.raft.peer;

import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.MessageType;
import io.akkaetcd.raft.storage.JournalCodec;

/**
 * Raft messages to and from their wire form ({@code RaftMessage} in raft.proto). The message
 * types map by name; a local type (HUP, BEAT, CHECK_QUORUM) never reaches the wire.
 */
public final class PeerCodec {
  private PeerCodec() {}

  /** The wire form stamped with {@code clusterId}, built once (no copy through a second builder). */
  public static RaftMessage toWire(Message m, long clusterId) {
    RaftMessage.Builder b = RaftMessage.newBuilder().setClusterId(clusterId)
        .setType(io.akkaetcd.proto.raftpb.MessageType.valueOf(m.type().name()))
        .setFrom(m.from()).setTo(m.to()).setTerm(m.term()).setLogTerm(m.logTerm()).setIndex(m.index())
        .setCommit(m.commit()).setReject(m.reject()).setRejectHint(m.rejectHint()).setContext(m.context());
    for (var e : m.entries()) {
      b.addEntries(JournalCodec.toProto(e));
    }
    return b.build();
  }

  public static Message fromWire(RaftMessage w) {
    if (w.getType() == io.akkaetcd.proto.raftpb.MessageType.MSG_UNKNOWN
        || w.getType() == io.akkaetcd.proto.raftpb.MessageType.UNRECOGNIZED) {
      throw new IllegalArgumentException("unknown raft message type " + w.getTypeValue());
    }
    return new Message(MessageType.valueOf(w.getType().name()), w.getFrom(), w.getTo(), w.getTerm(),
        w.getLogTerm(), w.getIndex(), JournalCodec.fromProto(w.getEntriesList()), w.getCommit(), w.getReject(),
        w.getRejectHint(), w.getContext());
  }
}
