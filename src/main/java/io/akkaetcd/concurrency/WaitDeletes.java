package io.akkaetcd.concurrency;

import akka.japi.Pair;
import akka.stream.KillSwitches;
import akka.stream.Materializer;
import akka.stream.UniqueKillSwitch;
import akka.stream.javadsl.Keep;
import akka.stream.javadsl.Sink;
import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.PlainError;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import java.util.concurrent.CompletableFuture;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * clientv3/concurrency's waitDeletes: wait until no key under a prefix was created at or before a
 * revision, by watching the newest such key for its deletion, again and again. Each waiter
 * watches only its direct predecessor, so a release wakes one waiter, not the herd. The wait ends
 * with {@link #CANCELED} once its caller is gone (etcd's waitDeletes on a canceled context).
 */
final class WaitDeletes {
  /** Go's context.Canceled: the caller of the waiting Lock or Campaign went away. */
  static final PlainError CANCELED = new PlainError("context canceled");

  private WaitDeletes() {}

  /**
   * Completes with the header of the read that found no predecessor left, or fails with
   * {@link #CANCELED} once {@code canceled} completes first.
   */
  static CompletionStage<ResponseHeader> waitDeletes(Store store, Materializer mat, ByteString prefix,
      long maxCreateRevision, CompletionStage<?> canceled) {
    if (canceled.toCompletableFuture().isDone()) {
      return CompletableFuture.failedFuture(CANCELED);
    }
    return store.range(Keys.lastCreatedUpTo(prefix, maxCreateRevision)).thenCompose(r -> {
      if (r.getKvsCount() == 0) {
        return CompletableFuture.completedFuture(r.getHeader());
      }
      return waitDelete(store, mat, r.getKvs(0).getKey(), r.getHeader().getRevision(), canceled)
          .thenCompose(v -> waitDeletes(store, mat, prefix, maxCreateRevision, canceled));
    });
  }

  /** Completes once {@code key} is deleted at or after {@code revision}; its watch ends on {@code canceled}. */
  static CompletionStage<Void> waitDelete(Store store, Materializer mat, ByteString key, long revision,
      CompletionStage<?> canceled) {
    Pair<UniqueKillSwitch, CompletionStage<Optional<WatchResponse>>> run =
        store.watch(WatchCreateRequest.newBuilder().setKey(key).setStartRevision(revision).build())
            .viaMat(KillSwitches.single(), Keep.right())
            .map(WaitDeletes::failIfCanceled)
            .filter(w -> w.getEventsList().stream().anyMatch(e -> e.getType() == Event.EventType.DELETE))
            .take(1)
            .toMat(Sink.headOption(), Keep.both())
            .run(mat);
    canceled.whenComplete((v, e) -> run.first().abort(CANCELED));
    return run.second().thenApply(found -> {
      if (found.isEmpty()) {
        throw new PlainError("lost watcher waiting for delete"); // etcd's text
      }
      return null;
    });
  }

  /** A watch the server ends (compaction) ends the wait with etcd's error. */
  static WatchResponse failIfCanceled(WatchResponse w) {
    if (w.getCanceled()) {
      throw (w.getCompactRevision() != 0 ? EtcdError.COMPACTED : EtcdError.WATCH_CANCELED).exception();
    }
    return w;
  }
}
