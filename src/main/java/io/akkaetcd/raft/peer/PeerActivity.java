package io.akkaetcd.raft.peer;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each peer was last heard from, and since when without a break: etcd's {@code ActiveSince}
 * of a peer, which its strict reconfiguration check reads. A link is active while the peer is
 * heard from at least every {@code timeout}; a longer silence ends the run, and the next message
 * starts a new one. No clock of its own: callers pass {@link System#nanoTime()}.
 *
 * <p>Thread-safe: the probe receiver records, client requests read.
 */
public final class PeerActivity {
  /** One unbroken run of messages from a peer: the first and the latest, in nanoseconds. */
  private record Run(long since, long last) {}

  private final long timeoutNanos;
  private final ConcurrentHashMap<Long, Run> runs = new ConcurrentHashMap<>();

  public PeerActivity(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  /** Records a message from {@code peer} at {@code now}. */
  public void heard(long peer, long now) {
    runs.compute(peer, (id, run) -> run == null || now - run.last() > timeoutNanos
        ? new Run(now, now) : new Run(run.since(), Math.max(now, run.last())));
  }

  /** The start of the peer's current run, if it was heard from within the timeout. */
  public OptionalLong activeSince(long peer, long now) {
    Run run = runs.get(peer);
    return run == null || now - run.last() > timeoutNanos ? OptionalLong.empty() : OptionalLong.of(run.since());
  }

  /** True if the link from {@code peer} has been active, without a break, for at least {@code span}. */
  public boolean activeFor(long peer, long now, Duration span) {
    OptionalLong since = activeSince(peer, now);
    return since.isPresent() && now - since.getAsLong() >= span.toNanos();
  }
}
