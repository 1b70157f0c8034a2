package io.akkaetcd.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The leader's lease deadlines (etcd's lessor clock side). Not durable: when a member becomes
 * leader every lease gets its full TTL again plus an election timeout ({@link #promote}, etcd's
 * lessor Promote(electionTimeout)), so a lease never expires early because of a leader change or
 * a restart. Only the leader's keeper reports expired leases; the revoke itself goes through Raft.
 *
 * <p>With lease checkpoints on ({@link #checkpointEvery}, etcd's
 * --experimental-enable-lease-checkpoint), the leader also reports each lease's remaining TTL every
 * interval ({@link #dueCheckpoints}); once applied, a promotion gives a lease that remaining TTL
 * instead of its full one. Thread-safe.
 */
public final class LeaseKeeper {
  /** How long an expired lease waits before its revoke is proposed again if the first got lost. */
  static final long RETRY_NANOS = 3_000_000_000L;

  private final ConcurrentHashMap<Long, Long> deadlines = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, Long> ttls = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;
  /** What a promotion adds to every TTL (etcd extends by the election timeout). */
  private final long extendNanos;
  /** The term this keeper last promoted for (-1: none). */
  private long promotedTerm = -1;
  /** When each lease's next checkpoint is due (leases with more than an interval left). */
  private final ConcurrentHashMap<Long, Long> checkpointAt = new ConcurrentHashMap<>();
  /** etcd's checkpoint interval (5 min); 0: checkpoints off. */
  private volatile long checkpointNanos;
  private volatile LeaseObserver observer = LeaseObserver.NONE;

  public LeaseKeeper(LongSupplier nanoClock) {
    this(nanoClock, java.time.Duration.ZERO);
  }

  /** @param extend what a promotion adds to every lease's TTL: the election timeout, as in etcd */
  public LeaseKeeper(LongSupplier nanoClock, java.time.Duration extend) {
    this.nanoClock = nanoClock;
    this.extendNanos = extend.toNanos();
  }

  /**
   * The leader of {@code term} promotes once, whoever asks first: the expiry tick or a keep-alive
   * or time-to-live that reaches the new leader before that tick (its deadlines are stale until
   * then: the previous leader had them).
   */
  public synchronized void promoteOnce(long term, java.util.function.Supplier<Map<Long, Long>> leaseTtls) {
    if (promotedTerm != term) {
      promotedTerm = term;
      promote(leaseTtls.get());
    }
  }

  /** {@link #promoteOnce} with the lessor's applied checkpoints: a lease resumes its remaining TTL. */
  public synchronized void promoteOnce(long term, Lessor lessor) {
    if (promotedTerm != term) {
      promotedTerm = term;
      promote(lessor.ttls(), lessor.remainingTtls());
    }
  }

  /** Turns checkpoints on: every {@code interval}, a lease with more than that left reports its remaining TTL. */
  public void checkpointEvery(java.time.Duration interval) {
    checkpointNanos = interval.toNanos();
  }

  /** This member is no longer leader: the next leadership promotes again. */
  public synchronized void demoted() {
    promotedTerm = -1;
  }

  /** This member now leads: every lease gets its whole TTL from now, plus the extension. */
  public void promote(Map<Long, Long> leaseTtls) {
    promote(leaseTtls, Map.of());
  }

  /**
   * This member now leads: a lease with a checkpointed remaining TTL gets that from now, every
   * other lease its whole TTL, each plus the extension (etcd's Promote: remainingTTL if set).
   */
  public void promote(Map<Long, Long> leaseTtls, Map<Long, Long> remainingTtls) {
    deadlines.clear();
    ttls.clear();
    checkpointAt.clear();
    long now = nanoClock.getAsLong();
    leaseTtls.forEach((id, ttl) -> {
      ttls.put(id, ttl);
      deadlines.put(id, now + extendNanos + remainingTtls.getOrDefault(id, ttl) * 1_000_000_000L);
      scheduleCheckpoint(id, now);
    });
  }

  /**
   * Gives each of these leases that is still known its whole TTL from now, plus the extension;
   * other leases keep their deadlines. Only lengthens: for the leases a member recovered at start.
   */
  public void refresh(Map<Long, Long> leaseTtls) {
    long now = nanoClock.getAsLong();
    leaseTtls.forEach((id, ttl) -> {
      if (ttls.containsKey(id)) {
        deadlines.merge(id, now + extendNanos + ttl * 1_000_000_000L, Math::max);
      }
    });
  }

  /** Where renewals are reported from now on (etcd_debugging_lease_renewed_total). */
  public void observe(LeaseObserver observer) {
    this.observer = observer;
  }

  public void granted(long id, long ttlSeconds) {
    long now = nanoClock.getAsLong();
    ttls.put(id, ttlSeconds);
    deadlines.put(id, now + ttlSeconds * 1_000_000_000L);
    scheduleCheckpoint(id, now);
  }

  public void revoked(long id) {
    ttls.remove(id);
    deadlines.remove(id);
    checkpointAt.remove(id);
  }

  /**
   * A keep-alive: restarts the lease's TTL; returns the TTL, or 0 if the lease is unknown. With
   * checkpoints on, the lease's checkpoint falls due at once, so an applied remaining TTL is
   * cleared cluster-wide (etcd's Renew checkpoints {ID, 0} first).
   */
  public long renew(long id) {
    Long ttl = ttls.get(id);
    if (ttl == null) {
      return 0;
    }
    long now = nanoClock.getAsLong();
    deadlines.put(id, now + ttl * 1_000_000_000L);
    if (checkpointNanos > 0) {
      checkpointAt.put(id, now);
    }
    observer.renewed();
    return ttl;
  }

  /** etcd's scheduleCheckpointIfNeeded: only a lease with more than an interval left is checkpointed. */
  private void scheduleCheckpoint(long id, long now) {
    long interval = checkpointNanos;
    Long deadline = deadlines.get(id);
    if (interval > 0 && deadline != null && deadline - now > interval) {
      checkpointAt.put(id, now + interval);
    }
  }

  /**
   * Up to {@code max} checkpoints due now, as {lease id, remaining TTL in seconds rounded up}: a
   * lease with less than its whole TTL left reports it; one with its whole TTL (just renewed)
   * reports 0, which clears the applied remaining TTL, and only if {@code applied} has one.
   * Each lease is scheduled again an interval later while more than an interval is left.
   */
  public List<long[]> dueCheckpoints(int max, java.util.function.LongUnaryOperator applied) {
    long now = nanoClock.getAsLong();
    List<long[]> out = new ArrayList<>();
    for (Map.Entry<Long, Long> e : checkpointAt.entrySet()) {
      if (out.size() >= max) {
        break;
      }
      long id = e.getKey();
      Long deadline = deadlines.get(id);
      Long ttl = ttls.get(id);
      if (e.getValue() > now || deadline == null || ttl == null) {
        continue;
      }
      checkpointAt.remove(id);
      scheduleCheckpoint(id, now);
      long remaining = Math.max(0, (deadline - now + 999_999_999L) / 1_000_000_000L);
      if (remaining < ttl) {
        out.add(new long[] {id, remaining});
      } else if (applied.applyAsLong(id) > 0) {
        out.add(new long[] {id, 0});
      }
    }
    return out;
  }

  /** Seconds left before the lease expires (etcd rounds down), -1 if unknown. */
  public long remainingSeconds(long id) {
    Long deadline = deadlines.get(id);
    if (deadline == null) {
      return -1;
    }
    return Math.max(0, (deadline - nanoClock.getAsLong()) / 1_000_000_000L);
  }

  /** Up to {@code max} leases past their deadline; each is held back from the next call for a while. */
  public List<Long> expired(int max) {
    long now = nanoClock.getAsLong();
    List<Long> out = new ArrayList<>();
    for (Map.Entry<Long, Long> e : deadlines.entrySet()) {
      if (out.size() >= max) {
        break;
      }
      if (e.getValue() <= now) {
        out.add(e.getKey());
        deadlines.replace(e.getKey(), e.getValue(), now + RETRY_NANOS);
      }
    }
    return out;
  }
}
