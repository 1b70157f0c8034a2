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
 * Thread-safe.
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

  /** This member is no longer leader: the next leadership promotes again. */
  public synchronized void demoted() {
    promotedTerm = -1;
  }

  /** This member now leads: every lease gets its whole TTL from now, plus the extension. */
  public void promote(Map<Long, Long> leaseTtls) {
    deadlines.clear();
    ttls.clear();
    long now = nanoClock.getAsLong();
    leaseTtls.forEach((id, ttl) -> {
      ttls.put(id, ttl);
      deadlines.put(id, now + extendNanos + ttl * 1_000_000_000L);
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

  public void granted(long id, long ttlSeconds) {
    ttls.put(id, ttlSeconds);
    deadlines.put(id, nanoClock.getAsLong() + ttlSeconds * 1_000_000_000L);
  }

  public void revoked(long id) {
    ttls.remove(id);
    deadlines.remove(id);
  }

  /** A keep-alive: restarts the lease's TTL; returns the TTL, or 0 if the lease is unknown. */
  public long renew(long id) {
    Long ttl = ttls.get(id);
    if (ttl == null) {
      return 0;
    }
    deadlines.put(id, nanoClock.getAsLong() + ttl * 1_000_000_000L);
    return ttl;
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
