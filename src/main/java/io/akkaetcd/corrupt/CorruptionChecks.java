package io.akkaetcd.corrupt;

import akka.actor.Props;
import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.errors.StartupException;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.mvcc.KvStore.HashResult;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd 3.4's corruption checks on one member: the HashKV its peers ask for, the check before
 * serving (--experimental-initial-corrupt-check) and the leader's periodic one
 * (--experimental-corrupt-check-time, driven by {@link CorruptMonitor}). Hashes are taken on a
 * LevelDB snapshot on a thread of their own: writes go on meanwhile. {@link #close} ends that thread.
 */
public final class CorruptionChecks implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CorruptionChecks.class);

  private final long self;
  private final KvStore store;
  private final PeerHashes peers;
  private final ExecutorService hashing;

  /**
   * @param members the ids of the cluster's members, now
   * @param timeout how long a peer's hash may take (etcd's request timeout)
   */
  private volatile boolean serving;

  public CorruptionChecks(long self, KvStore store, PeerAsk ask, Supplier<List<Long>> members, Duration timeout) {
    this.self = self;
    this.store = store;
    this.peers = new PeerHashes(self, ask, members, timeout);
    this.hashing = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "hashkv-" + Long.toHexString(self));
      t.setDaemon(true);
      return t;
    });
  }

  /** The actor that answers peers' HashKV asks; to be started as {@link #ENDPOINT} under /user. */
  public Props endpointProps() {
    return HashKvEndpoint.props(self, store, hashing, () -> serving);
  }

  /** The member serves (after its initial check, if any): its endpoint now answers peers' asks. */
  public void markServing() {
    serving = true;
  }

  /** The endpoint's name on every member. */
  public static final String ENDPOINT = HashKvEndpoint.NAME;

  /**
   * etcd's CheckInitialHashKV: hashes this member's store at its current revision and asks every
   * peer for its hash there. A peer with the same compact revision and another hash is a
   * mismatch, and the member must not serve: etcd fails its start with this error text. Peers
   * that are behind, compacted further or unreachable are logged and skipped. Blocks.
   */
  public void initialCheck() {
    String id = Long.toHexString(self);
    log.info("{} starting initial corruption check", id);
    HashResult local = store.hashKV(0);
    List<Long> mismatched = HashRules.initialMismatches(local, peers.at(local.revision()).join());
    for (long peer : mismatched) {
      log.warn("{} found different hash values from remote peer {} at revision {} (compact revision {})", id,
          Long.toHexString(peer), local.revision(), local.compactRevision());
    }
    if (!mismatched.isEmpty()) {
      throw new StartupException(id + " found data inconsistency with peers");
    }
    log.info("{} initial corruption checking passed; no corruption", id);
  }

  /**
   * etcd's checkHashKV, on the leader: hash at the current revision, the peers' hashes there,
   * then, after {@code linearizableRead}, this member's hash again. Completes with the member to
   * raise the CORRUPT alarm for ({@link HashRules#periodicMismatch}), if any.
   */
  public CompletionStage<OptionalLong> periodicCheck(Supplier<CompletionStage<Void>> linearizableRead) {
    return CompletableFuture.supplyAsync(() -> store.hashKV(0), hashing)
        .thenCompose(before -> peers.at(before.revision())
            .thenCompose(answers -> linearizableRead.get().thenApplyAsync(v -> {
              OptionalLong corrupt = HashRules.periodicMismatch(self, before, store.hashKV(0), answers);
              corrupt.ifPresent(m -> log.warn("{} found hash mismatch at revision {} (compact revision {}): member {}",
                  Long.toHexString(self), before.revision(), before.compactRevision(), Long.toHexString(m)));
              log.debug("{} finished peer corruption check; {} peers asked", Long.toHexString(self), answers.size());
              return corrupt;
            }, hashing)));
  }

  @Override
  public void close() {
    hashing.shutdownNow();
  }
}
