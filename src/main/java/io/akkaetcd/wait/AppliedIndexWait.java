package io.akkaetcd.wait;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Futures waiting for the applied index to reach a value (etcd's WaitTime on the applied index).
 * Linearizable reads wait here for their read index. Invariant: the published index only grows;
 * a waiter is completed once, by whichever of {@link #waitFor} and {@link #advance} sees it done.
 */
public final class AppliedIndexWait {
  private record Waiter(long index, CompletableFuture<Long> future) {}

  private final PriorityQueue<Waiter> waiters =
      new PriorityQueue<>((a, b) -> Long.compare(a.index, b.index));
  private volatile long applied;

  public AppliedIndexWait(long initial) {
    this.applied = initial;
  }

  public long applied() {
    return applied;
  }

  /** Completes when the applied index is at least {@code index}, at once if it already is. */
  public CompletableFuture<Long> waitFor(long index) {
    long now = applied;
    if (now >= index) {
      return CompletableFuture.completedFuture(now);
    }
    CompletableFuture<Long> f = new CompletableFuture<>();
    synchronized (this) {
      if (applied >= index) {
        return CompletableFuture.completedFuture(applied);
      }
      waiters.add(new Waiter(index, f));
    }
    return f;
  }

  /** Publishes a new applied index and completes the waiters it satisfies (outside the lock). */
  public void advance(long index) {
    java.util.List<Waiter> done = new java.util.ArrayList<>();
    synchronized (this) {
      if (index <= applied) {
        return;
      }
      applied = index;
      while (!waiters.isEmpty() && waiters.peek().index <= index) {
        done.add(waiters.poll());
      }
    }
    done.forEach(w -> w.future.complete(index));
  }
}
