package io.akkaetcd.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on clients' proposals waiting to be applied at this member (etcd #21513): at most
 * {@code maxProposals} of them, and {@code maxBytes} of their encodings, though one proposal alone
 * is always admitted. What is over it is refused before it is registered or reaches Raft, so that
 * what is admitted waits behind a bounded queue. Invariant: {@link #inFlight()} never exceeds
 * {@code maxProposals}. Thread-safe; a bound of 0 is no bound.
 */
final class ProposalAdmission {
  private final int maxProposals;
  private final long maxBytes;
  private final AtomicInteger proposals = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();

  ProposalAdmission(int maxProposals, long maxBytes) {
    this.maxProposals = maxProposals == 0 ? Integer.MAX_VALUE : maxProposals;
    this.maxBytes = maxBytes == 0 ? Long.MAX_VALUE : maxBytes;
  }

  /** False when both bounds are 0: then nothing needs counting. */
  boolean bounded() {
    return maxProposals != Integer.MAX_VALUE || maxBytes != Long.MAX_VALUE;
  }

  /** Admits a proposal of {@code size} bytes if the bound allows; each admitted one is {@link #release}d once. */
  boolean tryAdmit(int size) {
    int n;
    do {
      n = proposals.get();
      if (n >= maxProposals) {
        return false;
      }
    } while (!proposals.compareAndSet(n, n + 1));
    long before = bytes.getAndAdd(size);
    if (before != 0 && before + size > maxBytes) {
      release(size);
      return false;
    }
    return true;
  }

  /** An admitted proposal of {@code size} bytes was applied here, or failed. */
  void release(int size) {
    bytes.addAndGet(-size);
    proposals.decrementAndGet();
  }

  /** Admitted proposals not yet released. */
  int inFlight() {
    return proposals.get();
  }
}
