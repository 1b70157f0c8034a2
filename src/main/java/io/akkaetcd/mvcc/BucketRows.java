package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows of etcd's named buckets other than the key space (the auth buckets {@code auth},
 * {@code authUsers}, {@code authRoles}): {@code 'u' + bucket name + 0 + key} → value, written with
 * the applier's batch (so with the applied index), read back at start and after a snapshot
 * install. Bucket names hold no zero byte.
 */
final class BucketRows {
  private final Backend backend;
  private final ApplyBatch batch;

  BucketRows(Backend backend, ApplyBatch batch) {
    this.backend = backend;
    this.batch = batch;
  }

  /** {@link KvStore#putBucketRow}; applier thread. */
  void put(String bucket, ByteString key, ByteString value) {
    byte[] k = StoreLayout.bucketKey(bucket, key.toByteArray());
    if (value == null) {
      batch.delete(k);
    } else {
      batch.put(k, value.toByteArray());
    }
  }

  /** {@link KvStore#bucketRows}: the bucket's rows in key order. */
  List<KvStore.BucketRow> read(String bucket) {
    byte[] head = StoreLayout.bucketKey(bucket, new byte[0]);
    return backend.guarded(() -> {
      List<KvStore.BucketRow> out = new ArrayList<>();
      backend.scanPrefix(StoreLayout.BUCKET, (k, v) -> {
        if (k.length >= head.length && Arrays.equals(k, 0, head.length, head, 0, head.length)) {
          out.add(new KvStore.BucketRow(bucket, ByteString.copyFrom(k, head.length, k.length - head.length),
              ByteString.copyFrom(v)));
        }
      });
      return out;
    });
  }

  static byte[] name(String bucket) {
    return bucket.getBytes(StandardCharsets.UTF_8);
  }
}
