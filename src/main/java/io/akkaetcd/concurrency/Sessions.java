package io.akkaetcd.concurrency;

import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The lease a recipe call runs under, as etcd's servers open an orphaned concurrency.Session:
 * lease 0 grants a fresh lease of the session's default TTL (60 s) that nobody keeps alive; any
 * other id is used as given (a missing lease fails the txn that attaches it).
 */
final class Sessions {
  /** concurrency.defaultSessionTTL. */
  static final long DEFAULT_TTL_SECONDS = 60;

  private Sessions() {}

  static CompletionStage<Long> lease(Store store, long lease) {
    if (lease != 0) {
      return CompletableFuture.completedFuture(lease);
    }
    return store.grant(LeaseGrantRequest.newBuilder().setTTL(DEFAULT_TTL_SECONDS).build()).thenApply(r -> r.getID());
  }
}
