package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What {@code etcdctl snapshot status} reports of a snapshot file (clientv3/snapshot Status): a
 * crc32c over every top-level bucket's name then its keys and values, the main revision of the
 * last "key" row, the number of pairs in all buckets, and the image's size (pages × page size).
 * As etcd's Status, bbolt's consistency check runs first and its errors fail the status.
 */
public record SnapshotStatus(long hash, long revision, long totalKey, long totalSize) {
  /** bbolt's check found errors; the message is etcd's, the error lines after the first. */
  public static final class IntegrityException extends IOException {
    IntegrityException(List<String> errors) {
      super("snapshot file integrity check failed. " + errors.size() + " errors found.\n" + String.join("\n", errors));
    }
  }

  public static SnapshotStatus of(BboltReader reader) throws IOException {
    List<String> errors = BboltCheck.check(reader);
    if (!errors.isEmpty()) {
      throw new IntegrityException(errors);
    }
    CRC32C crc = new CRC32C();
    long[] counts = {0, 0}; // pairs, revision
    for (ByteString bucket : reader.bucketNames()) {
      crc.update(bucket.toByteArray());
      boolean keys = bucket.toStringUtf8().equals(EtcdBuckets.KEY);
      reader.forEach(bucket, (k, v) -> {
        crc.update(k.toByteArray());
        if (v != null) {
          crc.update(v.toByteArray());
        }
        counts[0]++;
        if (keys && k.size() >= 8) {
          counts[1] = k.asReadOnlyByteBuffer().getLong(0);
        }
      });
    }
    return new SnapshotStatus(crc.getValue(), counts[1], counts[0], reader.meta().highWater() * reader.meta().pageSize());
  }
}
