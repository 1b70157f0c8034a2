package io.akkaetcd.concurrency;

import akka.stream.Materializer;
import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.v3lockpb.Lock;
import io.akkaetcd.proto.v3lockpb.LockRequest;
import io.akkaetcd.proto.v3lockpb.LockResponse;
import io.akkaetcd.proto.v3lockpb.UnlockRequest;
import io.akkaetcd.proto.v3lockpb.UnlockResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * etcd's v3lockpb.Lock (etcdserver/api/v3lock), as clientv3/concurrency's Mutex: the caller's key
 * is {@code name/hex(lease)}, attached to the lease; the lock belongs to the key with the lowest
 * create revision under {@code name/}, and a waiter waits for the deletion of every key created
 * before its own. The key's create revision is thus a fencing token. A holder's lease expiring
 * deletes its key and so hands the lock on. Thread-safe: every step is a call on the {@link Store}
 * of the caller, taken as the call enters, so each step acts with the caller's identity (etcd's
 * v3lock passes the caller's context to its client).
 */
public final class LockService implements Lock {
  private final Supplier<Store> callerStore;
  private final Materializer mat;

  /** @param callerStore the store acting as the call being entered; asked on the entering thread */
  public LockService(Supplier<Store> callerStore, Materializer mat) {
    this.callerStore = callerStore;
    this.mat = mat;
  }

  /** A Lock whose caller is never seen to go away (an in-process call). */
  @Override
  public CompletionStage<LockResponse> lock(LockRequest in) {
    return lock(in, new CompletableFuture<Void>());
  }

  /**
   * Blocks (completes) once the caller holds the lock. A failed wait deletes the caller's key, and
   * so does {@code canceled} completing while it waits: etcd's Mutex.Lock on a canceled context.
   */
  public CompletionStage<LockResponse> lock(LockRequest in, CompletionStage<Void> canceled) {
    return tryLock(in).thenCompose(attempt -> attempt.answer(canceled));
  }

  /**
   * Mutex.Lock up to its one txn, which puts the caller's key if new and reads the owner in the
   * same apply: {@link Attempt.Done} when the caller holds the lock (the uncontended path, no
   * wait and no watch), else the wait for its predecessors' deletion.
   */
  public CompletionStage<Attempt<LockResponse>> tryLock(LockRequest in) {
    Store store = callerStore.get();
    ByteString prefix = Keys.prefix(in.getName());
    return ClientErrors.asClient(Sessions.lease(store, in.getLease()).thenCompose(lease -> {
      ByteString myKey = Keys.contender(prefix, lease);
      return store.txn(Keys.enter(prefix, myKey, ByteString.EMPTY, lease)).thenApply(t -> {
        long myRev = t.getSucceeded() ? t.getHeader().getRevision()
            : t.getResponses(0).getResponseRange().getKvs(0).getCreateRevision();
        var owner = t.getResponses(1).getResponseRange().getKvsList();
        if (owner.isEmpty() || owner.get(0).getCreateRevision() == myRev) {
          return Attempt.done(LockResponse.newBuilder().setHeader(t.getHeader()).setKey(myKey).build());
        }
        return Attempt.waiting(canceled -> ClientErrors.asClient(waitTurn(store, prefix, myKey, myRev, canceled)));
      });
    }));
  }

  /** waitDeletes of every key created before {@code myKey}; a failed wait deletes {@code myKey}. */
  private CompletionStage<LockResponse> waitTurn(Store store, ByteString prefix, ByteString myKey, long myRev,
      CompletionStage<Void> canceled) {
    return WaitDeletes.waitDeletes(store, mat, prefix, myRev - 1, canceled)
        .thenApply(h -> LockResponse.newBuilder().setHeader(h).setKey(myKey).build())
        .exceptionallyCompose(e -> store.delete(DeleteRangeRequest.newBuilder().setKey(myKey).build())
            .handle((d, x) -> null)
            .thenCompose(v -> CompletableFuture.failedFuture(e)));
  }

  /** Deletes the key a Lock returned (a plain Delete, whoever holds it). */
  @Override
  public CompletionStage<UnlockResponse> unlock(UnlockRequest in) {
    return ClientErrors.asClient(callerStore.get().delete(DeleteRangeRequest.newBuilder().setKey(in.getKey()).build())
        .thenApply(d -> UnlockResponse.newBuilder().setHeader(d.getHeader()).build()));
  }
}
