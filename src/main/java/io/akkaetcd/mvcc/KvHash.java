package io.akkaetcd.mvcc;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.KvStore.HashResult;
import java.util.zip.CRC32C;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;

/**
 * etcd's HashKV: a CRC-32C over the name of etcd's "key" bucket, then every revision row in
 * (compactRevision, rev], row keys without their prefix byte, then values, in revision order. The
 * rows are etcd's bytes, so the number is etcd's for the same history. Members that applied the
 * same entries and compacted at the same revision agree. Runs on any thread, on a LevelDB snapshot.
 */
final class KvHash {
  /** etcd hashes its bucket's name first (mvcc kvstore hashByRev). */
  private static final byte[] KEY_BUCKET = "key".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private final KvIndex index;
  private final Backend backend;

  KvHash(KvIndex index, Backend backend) {
    this.index = index;
    this.backend = backend;
  }

  /**
   * etcd's hashByRev over this store's rows: the bucket name, then the rows at or below the
   * compaction that a compaction at {@code at} would keep (kvindex.Keep: each key's live version
   * at {@code at}), then every row in (compacted, at], in revision order. etcd takes every row at
   * or below the compaction instead when that keep set is empty (no key live at {@code at}), which
   * is known only at the end: both sums are kept until then.
   */
  private int etcdHash(ReadOptions options, long compacted, long at) {
    CRC32C kept = new CRC32C();
    CRC32C all = new CRC32C();
    kept.update(KEY_BUCKET);
    all.update(KEY_BUCKET);
    boolean[] anyLive = {false};
    if (compacted > 0) {
      backend.scanRevisions(options, 0, compacted, (k, value) -> {
        byte[] v = etcdValue(k, value);
        update(all, k, v);
        if (!Revision.isTombstone(k, 1) && keptAt(at, Revision.fromBytes(k, 1), value)) {
          anyLive[0] = true;
          update(kept, k, v);
        }
      });
    }
    backend.scanRevisions(options, compacted + 1, at, (k, value) -> {
      byte[] v = etcdValue(k, value);
      update(kept, k, v);
      if (compacted > 0) {
        update(all, k, v);
        if (!anyLive[0] && !Revision.isTombstone(k, 1) && keptAt(at, Revision.fromBytes(k, 1), value)) {
          anyLive[0] = true;
        }
      }
    });
    return (int) (compacted > 0 && !anyLive[0] ? all : kept).getValue();
  }

  /** A row's value as etcd's bucket holds it. */
  private static byte[] etcdValue(byte[] k, byte[] value) {
    return Revision.isTombstone(k, 1) ? StoreLayout.etcdTombstoneValue(value, 0, value.length).toByteArray() : value;
  }

  /** A row into a sum: its key without the prefix byte, then its value. */
  private static void update(CRC32C crc, byte[] k, byte[] v) {
    crc.update(k, 1, k.length - 1);
    crc.update(v);
  }

  /** Whether the row at {@code rev} is still its key's live version at {@code at}. */
  private boolean keptAt(long at, Revision rev, byte[] value) {
    KeyIndex history = index.get(StoreLayout.parse(value).getKey().toByteArray());
    KeyIndex.Version live = history == null ? null : history.live(at);
    return live != null && live.revision().equals(rev);
  }

  /** {@link KvStore#hashKV}. */
  HashResult hash(long rev) {
    return backend.guarded(() -> readHash(rev));
  }

  private HashResult readHash(long rev) {
    long current = index.currentRevision();
    long at = rev <= 0 ? current : rev;
    if (at > current) {
      throw EtcdError.FUTURE_REV.exception();
    }
    while (true) {
      long compacted = index.compactRevision();
      // etcd: a revision asked for at or below the compaction is compacted; 0 (current) never is
      if (rev > 0 ? at <= compacted : at < compacted) {
        throw EtcdError.COMPACTED.exception();
      }
      Snapshot snapshot = backend.db().getSnapshot();
      try {
        // compactRevision is published before any row is deleted: if it has not moved once the
        // snapshot exists, the snapshot holds every row in (compacted, at]. Otherwise a
        // compaction may already have removed some of them: hash again against the new one.
        if (index.compactRevision() != compacted) {
          continue;
        }
        return new HashResult(etcdHash(new ReadOptions().snapshot(snapshot), compacted, at), compacted, at);
      } finally {
        Backend.closeQuietly(snapshot);
      }
    }
  }
}
