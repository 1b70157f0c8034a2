package io.akkaetcd.metrics;

/**
 * Where etcd's gauges are read from, at scrape time only: the member's state is asked when
 * Prometheus scrapes, so the request path pays nothing for them. Implementations must be
 * thread-safe and quick (a scrape may come at any time, from an HTTP thread).
 */
public interface MemberGauges {
  /** etcd_server_has_leader. */
  boolean hasLeader();

  /** etcd_server_proposals_committed_total: the Raft commit index (a gauge in etcd). */
  long committedIndex();

  /** etcd_server_proposals_applied_total: the applied index (a gauge in etcd). */
  long appliedIndex();

  /** etcd_server_proposals_pending: proposals made here and not yet applied. */
  long pendingProposals();

  /** etcd_server_quota_backend_bytes. */
  long quotaBackendBytes();

  /** etcd_mvcc_db_total_size_in_bytes. */
  long dbTotalSize();

  /** etcd_mvcc_db_total_size_in_use_in_bytes. */
  long dbTotalSizeInUse();

  /** etcd_debugging_mvcc_keys_total: live keys. */
  long keysTotal();

  /** The label of etcd_server_version, e.g. {@code 3.4.23}. */
  String serverVersion();

  /** akka_etcd_raft_inbox_depth: what waits in the Raft member's inbox. */
  default long raftInboxDepth() {
    return 0;
  }

  /** etcd_debugging_mvcc_watch_stream_total: open watch streams. */
  default long watchStreams() {
    return 0;
  }

  /** etcd_debugging_mvcc_watcher_total: watches on every stream. */
  default long watchers() {
    return 0;
  }

  /** etcd_debugging_mvcc_slow_watcher_total: watches behind the store (etcd's unsynced ones). */
  default long slowWatchers() {
    return 0;
  }

  /** etcd_debugging_mvcc_pending_events_total: events in streams' buffers, not yet sent. */
  default long pendingEvents() {
    return 0;
  }

  /** etcd_debugging_mvcc_events_total: events sent to watch streams' clients (a counter). */
  default long eventsSent() {
    return 0;
  }

  /** etcd_debugging_mvcc_current_revision: the store's revision. */
  default long currentRevision() {
    return 0;
  }

  /** etcd_debugging_mvcc_compact_revision: the revision of the last compaction. */
  default long compactRevision() {
    return 0;
  }

  /** etcd_server_is_leader. */
  default boolean isLeader() {
    return false;
  }

  /** etcd_server_is_learner. */
  default boolean isLearner() {
    return false;
  }

  /** The label of etcd_cluster_version (major.minor), empty while not decided. */
  default String clusterVersion() {
    return "";
  }

  /** The label of etcd_server_id, in hexadecimal. */
  default long memberId() {
    return 0;
  }
}
