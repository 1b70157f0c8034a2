package io.akkaetcd.mvcc;

import io.akkaetcd.errors.EtcdError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction (etcd's compact): the scheduled revision is persisted, the compaction published
 * ({@link KvIndex#publishCompaction}), the key index compacted, all on the applier thread; then
 * the rows no history holds any more are deleted on the compactor's own thread, which also runs
 * defragmentation, in the order asked. The finished revision is written last, synced: a store
 * opened with a scheduled compaction not finished resumes it ({@link #resume}).
 *
 * <p>A compaction of a revision still in the applier's uncommitted batch waits for that batch:
 * no row is deleted before the history it belongs to is on disk, and after a crash the entry is
 * either applied with its batch or replayed cleanly.
 *
 * <p>{@link #compact} and {@link #afterCommit} are applier-confined; {@link #stop} is the closing
 * thread's.
 */
final class Compaction {
  private static final Logger log = LoggerFactory.getLogger(Compaction.class);
  private static final int COMPACTION_BATCH = 1000;

  private final KvIndex index;
  private final Backend backend;
  private final ApplyBatch batch;
  private final ExecutorService compactor = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "mvcc-compactor");
    t.setDaemon(true);
    return t;
  });
  /** A compaction of a revision of the uncommitted batch: started once the batch is on disk. */
  private long pendingCompact;
  private CompletableFuture<Void> pendingCompactDone;
  private volatile boolean stopping;
  private volatile CompactionObserver observer = CompactionObserver.NONE;

  Compaction(KvIndex index, Backend backend, ApplyBatch batch) {
    this.index = index;
    this.backend = backend;
    this.batch = batch;
  }

  /** Where the compactions' timings go from now on (etcd_debugging_mvcc_*_compaction_*). */
  void observe(CompactionObserver observer) {
    this.observer = observer;
  }

  /** Whether a compaction waits for the batch to be committed. */
  boolean pending() {
    return pendingCompact > 0;
  }

  /**
   * {@link KvStore#compact}. Checked against the applier's view (the revisions of the uncommitted
   * batch count), so the answer does not depend on how entries were batched. With nothing
   * uncommitted it starts at once; otherwise the scheduled revision goes into the batch (with the
   * compaction entry's applied index) and the compaction starts in {@link #afterCommit}.
   */
  CompletionStage<Void> compact(long rev) {
    if (rev <= Math.max(index.compactRevision(), pendingCompact)) {
      throw EtcdError.COMPACTED.exception();
    }
    if (rev > batch.revision()) {
      throw EtcdError.FUTURE_REV.exception();
    }
    if (pendingCompact == 0 && batch.clean()) {
      return start(rev); // nothing uncommitted: rev <= currentRevision
    }
    batch.put(StoreLayout.META_COMPACT_SCHEDULED, StoreLayout.longBytes(rev));
    pendingCompact = rev;
    if (pendingCompactDone == null) {
      pendingCompactDone = new CompletableFuture<>();
    }
    return pendingCompactDone;
  }

  /** Starts the compaction that waited for the batch just committed, if one did. */
  void afterCommit() {
    if (pendingCompact > 0) {
      long rev = pendingCompact;
      CompletableFuture<Void> done = pendingCompactDone;
      pendingCompact = 0;
      pendingCompactDone = null;
      start(rev).whenComplete((v, e) -> {
        if (e != null) {
          done.completeExceptionally(e);
        } else {
          done.complete(null);
        }
      });
    }
  }

  /**
   * At open: publishes the compaction revision read back and compacts the index at it; deletes
   * the rows of a compaction that was scheduled but not finished.
   */
  void resume(long finished, long scheduled) {
    long compacted = Math.max(finished, scheduled);
    index.publishCompaction(compacted);
    if (compacted > 0) {
      index.compact(compacted);
    }
    if (scheduled > finished) {
      log.info("resuming the compaction at revision {}", scheduled);
      deleteCompacted(scheduled);
    }
  }

  /** Persists {@code rev} as scheduled, publishes it, compacts the index, deletes in the background. */
  private CompletionStage<Void> start(long rev) {
    backend.db().put(StoreLayout.META_COMPACT_SCHEDULED, StoreLayout.longBytes(rev), new WriteOptions().sync(false));
    // Published before the index shrinks: a reader below it re-checks and answers COMPACTED.
    index.publishCompaction(rev);
    long t0 = System.nanoTime();
    index.compact(rev);
    observer.indexCompacted(System.nanoTime() - t0);
    return deleteCompacted(rev);
  }

  /**
   * Deletes from disk, in batches of {@value #COMPACTION_BATCH}, every revision at or before
   * {@code rev} that the compacted index no longer holds; completes after a synced write that
   * records the compaction as finished.
   */
  private CompletionStage<Void> deleteCompacted(long rev) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    DB compacted = backend.db();
    compactor.execute(() -> {
      try {
        long t0 = System.nanoTime();
        long deleted = 0;
        byte[] from = StoreLayout.revKey(new Revision(0, 0), false);
        while (from != null) {
          long batchStart = System.nanoTime();
          if (stopping) {
            throw new CancellationException("store closing");
          }
          List<byte[]> doomed = new ArrayList<>();
          long[] doomedBytes = {0};
          byte[] start = from;
          from = backend.guarded(() -> scanDoomed(sameDb(compacted), start, rev, doomed, doomedBytes));
          deleted += doomed.size();
          backend.guarded(() -> {
            deleteAll(sameDb(compacted), doomed);
            backend.rowBytes().addAndGet(-doomedBytes[0]); // (a replaced store recounted its own at open)
            return null;
          });
          if (from != null) {
            observer.batchDeleted(System.nanoTime() - batchStart); // etcd times every batch but the last
          }
        }
        backend.guarded(() -> {
          sameDb(compacted).put(StoreLayout.META_COMPACT_FINISHED, StoreLayout.longBytes(rev), new WriteOptions().sync(true));
          return null;
        });
        observer.finished(System.nanoTime() - t0, deleted);
        log.info("finished the compaction at revision {}: {} revisions deleted", rev, deleted);
        done.complete(null);
      } catch (CancellationException e) {
        log.info("compaction at revision {} interrupted by close; resumed on open", rev);
        done.completeExceptionally(e);
      } catch (RuntimeException e) {
        if (stopping) {
          log.info("compaction at revision {} interrupted by close; resumed on open", rev);
        } else {
          log.error("compaction at revision {} failed", rev, e);
        }
        done.completeExceptionally(e);
      }
    });
    return done;
  }

  /**
   * Examines, from row {@code from} on, up to {@value #COMPACTION_BATCH} rows at or before
   * {@code rev} and collects into {@code doomed} those the compacted index no longer holds (their
   * size into {@code doomedBytes[0]}). The iterator (and the LevelDB version it pins) lives for
   * one batch only.
   *
   * @return the row to continue from, or null when every row at or before {@code rev} was seen
   */
  private byte[] scanDoomed(DB db, byte[] from, long rev, List<byte[]> doomed, long[] doomedBytes) {
    int examined = 0;
    try (DBIterator it = db.iterator()) {
      for (it.seek(from); it.hasNext(); ) {
        Map.Entry<byte[], byte[]> e = it.next(); // one copy of the row (see Backend.scanRevisions)
        byte[] k = e.getKey();
        if (k[0] != StoreLayout.REV || Revision.fromBytes(k, 1).main() > rev) {
          return null;
        }
        if (examined++ == COMPACTION_BATCH) {
          return k;
        }
        KeyIndex ki = index.get(IndexFields.parse(e.getValue()).key());
        if (ki == null || !ki.contains(Revision.fromBytes(k, 1))) {
          doomed.add(k);
          doomedBytes[0] += k.length + e.getValue().length;
        }
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The store's LevelDB if it is still {@code expected}; a compaction of a store that a snapshot
   * replaced stops (the snapshot brings its own compaction state and resumes it).
   */
  private DB sameDb(DB expected) {
    if (backend.db() != expected) {
      throw new CancellationException("store replaced by a snapshot");
    }
    return expected;
  }

  private static void deleteAll(DB db, List<byte[]> keys) {
    if (keys.isEmpty()) {
      return;
    }
    WriteBatch b = db.createWriteBatch();
    keys.forEach(b::delete);
    db.write(b, new WriteOptions().sync(false));
    Backend.closeQuietly(b);
    keys.clear();
  }

  /**
   * etcd's defragment for LevelDB ({@link Backend#compactFiles}), on the compactor's thread after
   * any deletion queued before it.
   */
  CompletionStage<Void> defragment() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    compactor.execute(() -> {
      CompactionObserver o = observer;
      o.defragStarted();
      long t0 = System.nanoTime();
      try {
        backend.compactFiles();
        o.defragEnded(System.nanoTime() - t0);
        done.complete(null);
      } catch (RuntimeException e) {
        o.defragEnded(-1);
        done.completeExceptionally(e);
      }
    });
    return done;
  }

  /** Stops the compactor thread; a deletion cut short resumes on the next open. */
  void stop() {
    stopping = true;
    compactor.shutdown();
    try {
      if (!compactor.awaitTermination(60, TimeUnit.SECONDS)) {
        log.warn("the compactor did not stop; closing LevelDB anyway");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
