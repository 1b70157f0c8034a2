package io.akkaetcd.mvcc;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.KvStore.HashResult;
import java.util.zip.CRC32C;
import org.iq80.leveldb.ReadOptions;
import org.iq80.leveldb.Snapshot;

/**
 * etcd's HashKV: a CRC-32C over every revision row in (compactRevision, rev], row keys without
 * their prefix byte, then values, in revision order. Members that applied the same entries and
 * compacted at the same revision agree. Runs on any thread, on a LevelDB snapshot.
 */
final class KvHash {
  private final KvIndex index;
  private final Backend backend;

  KvHash(KvIndex index, Backend backend) {
    this.index = index;
    this.backend = backend;
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
      if (at < compacted) {
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
        CRC32C crc = new CRC32C();
        backend.scanRevisions(new ReadOptions().snapshot(snapshot), compacted + 1, at, (k, value) -> {
          crc.update(k, 1, k.length - 1);
          crc.update(value);
        });
        return new HashResult((int) crc.getValue(), compacted, at);
      } finally {
        Backend.closeQuietly(snapshot);
      }
    }
  }
}
