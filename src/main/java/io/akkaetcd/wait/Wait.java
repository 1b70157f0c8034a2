package io.akkaetcd.wait;

import com.google.protobuf.ByteString;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Proposals waiting for their entry to be applied, by request id (etcd's pkg/wait.Wait).
 * The API registers before proposing; the applier triggers after the entry's effects are
 * visible to readers; the raft member fails a proposal it had to drop. An id unknown here (an
 * entry re-applied after a restart, or proposed by another member) is ignored.
 *
 * <p>A request that waits too long is failed by {@link #expire}, which the server runs every few
 * milliseconds over what is still waiting: one sweep, not a timer per request (a timer each woke
 * the JDK's delay-scheduler thread on every request when requests came one at a time).
 */
public final class Wait {
  /** {@code data}/{@code request}: the proposal's encoding and the object it was encoded from, or nulls. */
  private record Pending(CompletableFuture<Object> future, long registeredNanos, ByteString data, Object request) {}

  private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();

  public CompletableFuture<Object> register(long id) {
    return register(id, System.nanoTime());
  }

  /** Registers {@code id} as registered at {@code nowNanos} ({@link System#nanoTime()}). */
  public CompletableFuture<Object> register(long id, long nowNanos) {
    return register(id, nowNanos, null, null);
  }

  /** Registers a proposal with its encoding {@code data} and {@code request}, which {@link #proposed} hands back. */
  public CompletableFuture<Object> register(long id, ByteString data, Object request) {
    return register(id, System.nanoTime(), data, request);
  }

  private CompletableFuture<Object> register(long id, long nowNanos, ByteString data, Object request) {
    CompletableFuture<Object> f = new CompletableFuture<>();
    Pending p = new Pending(f, nowNanos, data, request);
    if (pending.putIfAbsent(id, p) != null) {
      throw new IllegalStateException("duplicate request id " + id);
    }
    f.whenComplete((r, e) -> pending.remove(id, p));
    return f;
  }

  /**
   * The request registered under {@code id} if {@code data} is its encoding, else null: the
   * applier of the member that proposed an entry uses the proposer's object instead of parsing.
   */
  public Object proposed(long id, ByteString data) {
    Pending p = pending.get(id);
    return p != null && p.request() != null && p.data().equals(data) ? p.request() : null;
  }

  public void trigger(long id, Object result) {
    Pending p = pending.remove(id);
    if (p != null) {
      p.future().complete(result);
    }
  }

  public void fail(long id, Throwable error) {
    Pending p = pending.remove(id);
    if (p != null) {
      p.future().completeExceptionally(error);
    }
  }

  /** Requests waiting now (etcd_server_proposals_pending). */
  public int size() {
    return pending.size();
  }

  public boolean isPending(long id) {
    return pending.containsKey(id);
  }

  /**
   * Fails every request registered at least {@code timeoutNanos} before {@code nowNanos} with
   * {@code error} applied to the time it was registered.
   */
  public void expire(long nowNanos, long timeoutNanos, LongFunction<Throwable> error) {
    pending.forEach((id, p) -> {
      if (nowNanos - p.registeredNanos() >= timeoutNanos) {
        fail(id, error.apply(p.registeredNanos()));
      }
    });
  }

  /** Fails every waiting request, e.g. at shutdown. */
  public void failAll(Throwable error) {
    pending.keySet().forEach(id -> fail(id, error));
  }
}
