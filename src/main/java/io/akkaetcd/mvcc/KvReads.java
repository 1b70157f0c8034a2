package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.KvStore.RangeResult;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;

/**
 * Reads of the key-value history: ranges at a revision and the events of a span of revisions
 * (what watches catch up from). Committed reads ({@link #range}, {@link #events}) run on any
 * thread, never wait for the applier's I/O, and see only revisions in
 * [{@code compactRevision}, {@code currentRevision}]; a compaction that overtakes one makes it
 * answer COMPACTED. The applier's own reads inside a transaction go through {@link #rangeAt} and
 * {@link #value} with its overlay of uncommitted writes.
 */
final class KvReads {
  private final KvIndex index;
  private final Backend backend;

  KvReads(KvIndex index, Backend backend) {
    this.index = index;
    this.backend = backend;
  }

  /** {@link KvStore#range}. */
  RangeResult range(ByteString key, ByteString rangeEnd, long rev, long limit, boolean countOnly) {
    return backend.guarded(() -> readRange(key, rangeEnd, rev, limit, countOnly));
  }

  private RangeResult readRange(ByteString key, ByteString rangeEnd, long rev, long limit, boolean countOnly) {
    long current = index.currentRevision();
    long at = readable(current, rev);
    RangeResult r;
    try {
      r = rangeAt(key, rangeEnd, at, limit, countOnly, null, index.liveKeysAt(at));
    } catch (IllegalStateException missing) {
      throw overtaken(at, missing);
    }
    checkNotOvertaken(at);
    return new RangeResult(r.kvs(), r.count(), current);
  }

  /** The revision a committed read at {@code rev} reads (0: the current one), if it is readable. */
  private long readable(long current, long rev) {
    long at = rev <= 0 ? current : rev;
    if (at > current) {
      throw EtcdError.FUTURE_REV.exception();
    }
    if (at < index.compactRevision()) {
      throw EtcdError.COMPACTED.exception();
    }
    return at;
  }

  /** A compaction that overtook a read at {@code at}: what it saw may be incomplete. */
  private void checkNotOvertaken(long at) {
    if (at < index.compactRevision()) {
      throw EtcdError.COMPACTED.exception();
    }
  }

  /** A row missing from disk: COMPACTED if a compaction overtook the read, else the store is corrupt. */
  private RuntimeException overtaken(long at, IllegalStateException missing) {
    return at < index.compactRevision() ? EtcdError.COMPACTED.exception() : missing;
  }

  /**
   * The live keys in range at {@code at}, values read from {@code overlay} (the applier's
   * uncommitted writes; null for a committed read) or else from disk. With {@code live}, the
   * live keys at {@code at}, the count comes from it in O(log n) (etcd #16510) and the walk stops
   * at the limit; without it (a time-travel read) the walk goes through the range to count.
   */
  RangeResult rangeAt(ByteString key, ByteString rangeEnd, long at, long limit, boolean countOnly,
      Map<Revision, KeyValue> overlay, LiveKeySet live) {
    if (live != null && countOnly) {
      return new RangeResult(List.of(), KvIndex.count(live, key, rangeEnd), at);
    }
    DB db = backend.db();
    List<KeyValue> kvs = new ArrayList<>();
    long count = walk(key, rangeEnd, at, limit, live, countOnly ? null : v -> kvs.add(value(db, v.revision(), overlay)));
    return new RangeResult(kvs, count, at);
  }

  /**
   * Visits the versions a Range at {@code at} returns, in key order, up to {@code limit}
   * ({@code take} null: none); returns the range's count. With {@code live} the count comes from
   * it and the walk stops at the limit; without it the walk goes through the range to count.
   */
  private long walk(ByteString key, ByteString rangeEnd, long at, long limit, LiveKeySet live,
      Consumer<KeyIndex.Version> take) {
    long count = 0;
    long taken = 0;
    for (Map.Entry<byte[], KeyIndex> e : index.range(key, rangeEnd).entrySet()) {
      KeyIndex.Version v = e.getValue().live(at);
      if (v == null) {
        continue;
      }
      if (live != null && limit > 0 && taken >= limit) {
        break;
      }
      count++;
      if (take != null && (limit <= 0 || taken < limit)) {
        take.accept(v);
        taken++;
      }
    }
    return live != null && limit > 0 ? KvIndex.count(live, key, rangeEnd) : count;
  }

  /** {@link KvStore#rangeRows}. */
  RangeRows rangeRows(ByteString key, ByteString rangeEnd, long rev, long limit, boolean keysOnly) {
    return backend.guarded(() -> {
      long at = readable(index.currentRevision(), rev);
      RangeScan scan = new RangeScan(backend, index.range(key, rangeEnd), at, keysOnly, () -> checkNotOvertaken(at));
      try {
        scan.counted(walk(key, rangeEnd, at, limit, index.liveKeysAt(at), scan::add));
      } catch (IllegalStateException missing) {
        throw overtaken(at, missing);
      }
      checkNotOvertaken(at);
      return scan;
    });
  }

  private static byte[] row(DB db, Revision rev) {
    byte[] bytes = db.get(StoreLayout.revKey(rev, false));
    if (bytes == null) {
      throw new IllegalStateException("revision " + rev + " is in the index but not on disk");
    }
    return bytes;
  }

  /** The kv written at {@code rev}, from {@code overlay} (may be null) or else from disk. */
  KeyValue value(Revision rev, Map<Revision, KeyValue> overlay) {
    return value(backend.db(), rev, overlay);
  }

  private static KeyValue value(DB db, Revision rev, Map<Revision, KeyValue> overlay) {
    if (overlay != null) {
      KeyValue kv = overlay.get(rev);
      if (kv != null) {
        return kv;
      }
    }
    return StoreLayout.parse(row(db, rev));
  }

  /** {@link KvStore#events}. */
  List<Event> events(long fromRev, long toRev) {
    return backend.guarded(() -> readEvents(fromRev, toRev));
  }

  private List<Event> readEvents(long fromRev, long toRev) {
    // The compaction revision is kept (the newest row of each live key at it), so history from
    // it on is complete, as etcd's watch reads it.
    if (fromRev < index.compactRevision()) {
      throw EtcdError.COMPACTED.exception();
    }
    long to = Math.min(toRev, index.currentRevision());
    List<Event> out = new ArrayList<>();
    DB db = backend.db();
    Snapshot snapshot = db.getSnapshot();
    try {
      ReadOptions options = new ReadOptions().snapshot(snapshot);
      backend.scanRevisions(options, fromRev, to, (k, value) -> {
        Revision rev = Revision.fromBytes(k, 1);
        KeyValue kv = StoreLayout.parse(value);
        Event.Builder e = Event.newBuilder().setKv(kv)
            .setType(Revision.isTombstone(k, 1) ? Event.EventType.DELETE : Event.EventType.PUT);
        KeyIndex ki = index.get(kv.getKey().toByteArray());
        KeyIndex.Version prev = ki == null ? null : ki.live(rev.main() - 1);
        if (prev != null) {
          byte[] prevBytes = db.get(StoreLayout.revKey(prev.revision(), false), options);
          if (prevBytes != null) {
            e.setPrevKv(StoreLayout.parse(prevBytes));
          }
        }
        out.add(e.build());
      });
    } finally {
      Backend.closeQuietly(snapshot);
    }
    if (fromRev < index.compactRevision()) {
      throw EtcdError.COMPACTED.exception(); // compacted while reading
    }
    return out;
  }
}
