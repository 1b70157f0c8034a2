package io.akkaetcd.wait;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Proposals waiting for their entry to be applied, by request id (etcd's pkg/wait.Wait).
 * The API registers before proposing; the applier triggers after the entry's effects are
 * visible to readers; the raft member fails a proposal it had to drop. An id unknown here (an
 * entry re-applied after a restart, or proposed by another member) is ignored.
 */
public final class Wait {
  private final ConcurrentHashMap<Long, CompletableFuture<Object>> pending = new ConcurrentHashMap<>();

  public CompletableFuture<Object> register(long id) {
    CompletableFuture<Object> f = new CompletableFuture<>();
    if (pending.putIfAbsent(id, f) != null) {
      throw new IllegalStateException("duplicate request id " + id);
    }
    f.whenComplete((r, e) -> pending.remove(id, f));
    return f;
  }

  public void trigger(long id, Object result) {
    CompletableFuture<Object> f = pending.remove(id);
    if (f != null) {
      f.complete(result);
    }
  }

  public void fail(long id, Throwable error) {
    CompletableFuture<Object> f = pending.remove(id);
    if (f != null) {
      f.completeExceptionally(error);
    }
  }

  public boolean isPending(long id) {
    return pending.containsKey(id);
  }

  /** Fails every waiting request, e.g. at shutdown. */
  public void failAll(Throwable error) {
    pending.keySet().forEach(id -> fail(id, error));
  }
}
