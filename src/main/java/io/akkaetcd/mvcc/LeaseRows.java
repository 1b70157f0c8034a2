package io.akkaetcd.mvcc;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The leases' records ({@code 'l' + id → TTL [, checkpointed remaining TTL]}, see
 * {@link StoreLayout}): written with the
 * applier's batch, so a lease and the entry that granted or revoked it are on disk together, and
 * read back (any thread) when the lessor is rebuilt at start or after a snapshot install.
 */
final class LeaseRows {
  private final Backend backend;
  private final ApplyBatch batch;

  LeaseRows(Backend backend, ApplyBatch batch) {
    this.backend = backend;
    this.batch = batch;
  }

  /** {@link KvStore#putLease}; applier thread. */
  void put(long id, long ttlSeconds) {
    batch.put(StoreLayout.leaseKey(id), StoreLayout.longBytes(ttlSeconds));
  }

  /** {@link KvStore#putLeaseCheckpoint}: a remaining TTL of 0 writes the plain 8-byte record. */
  void put(long id, long ttlSeconds, long remainingTtl) {
    if (remainingTtl == 0) {
      put(id, ttlSeconds);
      return;
    }
    batch.put(StoreLayout.leaseKey(id), ByteBuffer.allocate(16).putLong(ttlSeconds).putLong(remainingTtl).array());
  }

  /** {@link KvStore#deleteLease}; applier thread. */
  void delete(long id) {
    batch.delete(StoreLayout.leaseKey(id));
  }

  /** {@link KvStore#leaseCheckpoints}: id → remaining TTL of the records that carry one. */
  Map<Long, Long> readCheckpoints() {
    return backend.guarded(() -> {
      Map<Long, Long> out = new HashMap<>();
      backend.scanPrefix(StoreLayout.LEASE, (k, v) -> {
        if (v.length >= 16) {
          out.put(StoreLayout.leaseIdOf(k), ByteBuffer.wrap(v, 8, 8).getLong());
        }
      });
      return out;
    });
  }

  /** {@link KvStore#leases}: id → TTL in seconds, as on disk. */
  Map<Long, Long> read() {
    return backend.guarded(() -> {
      Map<Long, Long> out = new HashMap<>();
      backend.scanPrefix(StoreLayout.LEASE, (k, v) -> out.put(StoreLayout.leaseIdOf(k), StoreLayout.longOf(v)));
      return out;
    });
  }
}
