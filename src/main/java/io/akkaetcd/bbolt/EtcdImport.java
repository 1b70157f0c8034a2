package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;

/**
 * Receives what an etcd-layout snapshot holds, as {@link EtcdBuckets#read} finds it: revisions in
 * ascending (main, sub) order, leases in ascending id order, the raised alarms, then the
 * compaction revisions once. The inverse of {@link EtcdExport}.
 */
public interface EtcdImport {
  void revision(EtcdExport.Revision revision) throws IOException;

  void lease(EtcdExport.Lease lease) throws IOException;

  /** One "alarm" bucket key: a serialized AlarmMember. */
  void alarm(ByteString member) throws IOException;

  /**
   * One row of an auth bucket ({@link EtcdBuckets#AUTH}: "auth", "authUsers", "authRoles"),
   * in etcd's bytes.
   */
  void bucketRow(String bucket, ByteString key, ByteString value) throws IOException;

  /** The last finished and scheduled compactions' revisions, 0 for none; called last. */
  void compaction(long finished, long scheduled) throws IOException;
}
