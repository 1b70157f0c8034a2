package io.akkaetcd.corrupt;

import akka.actor.AbstractActor;
import akka.actor.Props;
import akka.pattern.Patterns;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.peerpb.HashKVAnswer;
import io.akkaetcd.proto.peerpb.HashKVAsk;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * Answers peers' HashKV asks over the peer transport, as etcd serves HashKV on its peer URLs for
 * the corruption checks: the hash at the revision asked, with this member's current and compact
 * revisions, or etcd's error text (future revision, compacted). Hashing reads a LevelDB snapshot
 * on {@code hashing}, never this actor's thread, and blocks no write. Until the member serves
 * (its initial check passed) an ask gets an error, which askers skip: etcd serves its peer URLs
 * only after CheckInitialHashKV, so a damaged member never hands the leader its hash.
 */
final class HashKvEndpoint extends AbstractActor {
  /** The name of the actor, under /user on every member. */
  static final String NAME = "hashkv";

  /** The answer's error before the member serves. */
  static final String NOT_SERVING = "member not serving yet (initial corruption check)";

  private final long self;
  private final KvStore store;
  private final Executor hashing;
  private final BooleanSupplier serving;

  private HashKvEndpoint(long self, KvStore store, Executor hashing, BooleanSupplier serving) {
    this.self = self;
    this.store = store;
    this.hashing = hashing;
    this.serving = serving;
  }

  static Props props(long self, KvStore store, Executor hashing, BooleanSupplier serving) {
    return Props.create(HashKvEndpoint.class, () -> new HashKvEndpoint(self, store, hashing, serving));
  }

  @Override
  public Receive createReceive() {
    return receiveBuilder()
        .match(HashKVAsk.class, ask -> Patterns.pipe(CompletableFuture.supplyAsync(() -> answer(ask), hashing),
            getContext().getDispatcher()).to(getSender(), getSelf()))
        .build();
  }

  private HashKVAnswer answer(HashKVAsk ask) {
    HashKVAnswer.Builder a = HashKVAnswer.newBuilder().setMemberId(self);
    if (!serving.getAsBoolean()) {
      return a.setError(NOT_SERVING).build();
    }
    try {
      KvStore.HashResult h = store.hashKV(ask.getRevision());
      // etcd's header revision is the current one, read once the hash is taken.
      return a.setHash(h.hash()).setCompactRevision(h.compactRevision())
          .setRevision(store.currentRevision()).build();
    } catch (RuntimeException e) { // etcd's errors (future revision, compacted), a store closing
      return a.setRevision(store.currentRevision()).setError(String.valueOf(e.getMessage())).build();
    }
  }
}
