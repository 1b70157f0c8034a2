package io.akkaetcd.mvcc;

/**
 * Told how long a compaction's parts took, as etcd 3.4's mvcc times its compaction: the key
 * index's compaction (on the applier thread), each batch of deletions on disk but the last, and
 * the whole deletion with the revisions it removed (on the compactor's thread). Must take no lock.
 */
public interface CompactionObserver {
  /** Observes nothing. */
  CompactionObserver NONE = new CompactionObserver() { };

  /** The key index was compacted in {@code nanos}. */
  default void indexCompacted(long nanos) {}

  /** A batch of deletions took {@code nanos}, and more batches follow (etcd's pause). */
  default void batchDeleted(long nanos) {}

  /** A defragmentation starts (etcd_disk_defrag_inflight). */
  default void defragStarted() {}

  /** A defragmentation ended, having taken {@code nanos} if it succeeded, -1 if it failed. */
  default void defragEnded(long nanos) {}

  /** The deletion on disk finished after {@code nanos}, having removed {@code revisions} rows. */
  default void finished(long nanos, long revisions) {}
}
