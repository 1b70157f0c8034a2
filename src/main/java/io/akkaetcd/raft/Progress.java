package io.akkaetcd.raft;

/**
 * The leader's view of one follower (Raft §5.3): {@code match} is the highest index known to be
 * replicated there, {@code next} the next index to send. Invariant: {@code match < next}.
 */
final class Progress {
  long match;
  long next;
  /** Heard from since the last quorum check (for check-quorum). */
  boolean recentActive;

  Progress(long next) {
    this.next = next;
  }

  /** An acknowledgement up to {@code index}; returns true if it moved {@code match}. */
  boolean maybeUpdate(long index) {
    boolean updated = index > match;
    if (updated) {
      match = index;
    }
    next = Math.max(next, index + 1);
    return updated;
  }

  /** A rejection of an append at {@code rejected}; the follower's last index is {@code hint}. */
  boolean maybeDecrease(long rejected, long hint) {
    if (rejected <= match) {
      return false; // stale rejection
    }
    next = Math.max(match + 1, Math.min(rejected, hint + 1));
    return true;
  }
}
