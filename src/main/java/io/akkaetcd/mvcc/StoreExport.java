package io.akkaetcd.mvcc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;

/**
 * One export of the whole store, to another member: every row in key order, on a LevelDB
 * snapshot (the applier and the compactor go on meanwhile), with the applied entry it ends at.
 * Taken on the applier thread between batches ({@link MvccStore#export}), then read in chunks on
 * another thread ({@link IncomingStore} writes them on the receiving side). The caller closes it;
 * closing or replacing the store releases it first, and its reads then fail.
 */
public final class StoreExport implements AutoCloseable {
  private final Backend backend;
  /** How the backend releases this export before LevelDB closes. */
  private final Backend.Pinned pin = this::release;
  private final Snapshot snapshot;
  private final DBIterator rows;
  private final long index;
  private final long term;
  private boolean released; // guarded by this

  private StoreExport(Backend backend, DB source) {
    this.backend = backend;
    snapshot = source.getSnapshot();
    ReadOptions options = new ReadOptions().snapshot(snapshot).fillCache(false);
    index = StoreLayout.longOf(source.get(StoreLayout.META_APPLIED, options));
    term = StoreLayout.longOf(source.get(StoreLayout.META_APPLIED_TERM, options));
    rows = source.iterator(options);
    rows.seekToFirst();
  }

  /** A copy of the store as it is now; STOPPED once the store is closed. */
  static StoreExport open(Backend backend) {
    return backend.guarded(() -> {
      StoreExport e = new StoreExport(backend, backend.db());
      backend.pin(e.pin);
      return e;
    });
  }

  /** The raft index of the last entry this copy reflects. */
  public long appliedIndex() {
    return index;
  }

  /** The raft term of that entry. */
  public long appliedTerm() {
    return term;
  }

  /** The next rows (key, value), about {@code maxBytes} of them; none once all were read. */
  public List<Map.Entry<byte[], byte[]>> next(long maxBytes) {
    return backend.guarded(() -> {
      synchronized (this) {
        if (released) {
          throw new IllegalStateException("the store was closed or replaced during the export");
        }
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
        long bytes = 0;
        while (bytes < maxBytes && rows.hasNext()) {
          Map.Entry<byte[], byte[]> row = rows.next();
          out.add(row);
          bytes += row.getKey().length + row.getValue().length;
        }
        return out;
      }
    });
  }

  /** Whether every row was read. */
  public boolean exhausted() {
    return backend.guarded(() -> {
      synchronized (this) {
        return released || !rows.hasNext();
      }
    });
  }

  @Override
  public void close() {
    backend.underReadLock(this::release);
  }

  /** Frees the iterator and the snapshot (under the lifecycle lock, either side); idempotent. */
  private synchronized void release() {
    if (!released) {
      released = true;
      Backend.closeQuietly(rows);
      Backend.closeQuietly(snapshot);
      backend.unpin(pin);
    }
  }
}
