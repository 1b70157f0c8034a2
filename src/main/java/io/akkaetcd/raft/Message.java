package io.akkaetcd.raft;

import com.google.protobuf.ByteString;
import java.util.List;

/**
 * A message between members. {@code term == 0} marks a message that is not bound to a term
 * (a proposal or read-index forwarded by a follower), as in etcd's raft.
 */
public record Message(MessageType type, long from, long to, long term, long logTerm, long index,
                      List<Entry> entries, long commit, boolean reject, long rejectHint,
                      ByteString context) {
  public Message {
    entries = List.copyOf(entries);
    context = context == null ? ByteString.EMPTY : context;
  }

  /**
   * A proposal or read index on its way to the leader: it promises nothing about this member's
   * log, so it need not wait for this member's journal write (only acknowledgements and votes do).
   */
  public boolean isForward() {
    return type == MessageType.PROPOSE || type == MessageType.READ_INDEX;
  }

  static Builder of(MessageType type) {
    return new Builder(type);
  }

  /** A small builder: most messages set only a few fields. */
  static final class Builder {
    private final MessageType type;
    private long from;
    private long to;
    private long term;
    private long logTerm;
    private long index;
    private List<Entry> entries = List.of();
    private long commit;
    private boolean reject;
    private long rejectHint;
    private ByteString context = ByteString.EMPTY;

    private Builder(MessageType type) {
      this.type = type;
    }

    Builder from(long v) { from = v; return this; }
    Builder to(long v) { to = v; return this; }
    Builder term(long v) { term = v; return this; }
    Builder logTerm(long v) { logTerm = v; return this; }
    Builder index(long v) { index = v; return this; }
    Builder entries(List<Entry> v) { entries = v; return this; }
    Builder commit(long v) { commit = v; return this; }
    Builder reject(boolean v) { reject = v; return this; }
    Builder rejectHint(long v) { rejectHint = v; return this; }
    Builder context(ByteString v) { context = v; return this; }

    Message build() {
      return new Message(type, from, to, term, logTerm, index, entries, commit, reject, rejectHint, context);
    }
  }
}
