package io.akkaetcd.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * One member's metrics, with etcd 3.4's names, types, labels, help and buckets
 * (etcdserver/metrics.go, mvcc/metrics.go, mvcc/backend/metrics.go, wal/metrics.go,
 * rafthttp/metrics.go, v3rpc/metrics.go). Gauges are read from {@link MemberGauges} at scrape
 * time; counters and histograms are fed with one call by the code that sees the event. Each
 * member has its own registry (several members may share a JVM, as in tests), plus the JVM's and
 * process's metrics. Thread-safe; updates take no lock.
 */
public final class EtcdMetrics {
  /** What etcd's /metrics answers with (promhttp, text format 0.0.4). */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.builder().build();
  private final GrpcServerMetrics grpc;
  /** Whether the request path counts (see {@link #counting()}). */
  private final boolean counting;
  /**
   * Done once the JVM's and process's metrics are registered, on a thread of their own (reading
   * the JVM's MX beans the first time took about 7 % of a member's start, issue #32), or at once
   * when there are none to register. Scrapes wait for it.
   */
  private final CompletableFuture<Void> jvmRegistered = new CompletableFuture<>();
  /** Set by the one caller that starts the registration. */
  private final AtomicBoolean jvmRegistering = new AtomicBoolean();

  /** etcd_server_leader_changes_seen_total: feed from the Raft member when the leader changes. */
  public final Counter leaderChanges;
  /** etcd_server_proposals_failed_total: feed when a proposal fails (timeout, dropped). */
  public final Counter proposalsFailed;
  /** etcd_disk_wal_fsync_duration_seconds: feed with the journal's sync time. */
  public final Histogram walFsyncDuration;
  /** etcd_disk_backend_commit_duration_seconds: feed with the MVCC batch commit time. */
  public final Histogram backendCommitDuration;
  /** etcd_network_peer_round_trip_time_seconds{To}. */
  public final Histogram peerRoundTripTime;
  /** etcd_network_peer_sent_bytes_total{To}. */
  public final Counter peerSentBytes;
  /** etcd_network_peer_sent_failures_total{To}. */
  public final Counter peerSentFailures;
  /** etcd_network_peer_received_bytes_total{From}. */
  public final Counter peerReceivedBytes;
  /** etcd_network_active_peers{Local,Remote}: 1 while the link is active. */
  public final Gauge activePeers;
  /** etcd_network_disconnected_peers_total{Local,Remote}. */
  public final Counter disconnectedPeers;
  /** etcd_network_client_grpc_sent_bytes_total. */
  public final Counter clientGrpcSentBytes;
  /** etcd_network_client_grpc_received_bytes_total. */
  public final Counter clientGrpcReceivedBytes;
  /** akka_etcd_journal_write_batch_events: Raft log events per journal write. */
  public final Histogram journalWriteBatch;
  /** etcd_mvcc_{range,put,delete,txn}_total; etcd 3.4's etcd_debugging_mvcc_* twins read them. */
  private final Counter mvccRanges;
  private final Counter mvccPuts;
  private final Counter mvccDeletes;
  private final Counter mvccTxns;
  /** etcd_debugging_mvcc_total_put_size_in_bytes (a gauge in etcd that only grows). */
  private final Gauge totalPutSize;
  /** etcd_debugging_mvcc_index_compaction_pause_duration_milliseconds: the key index's compaction. */
  public final Histogram indexCompactionPause;
  /** etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds: each deletion batch but the last. */
  public final Histogram dbCompactionPause;
  /** etcd_debugging_mvcc_db_compaction_total_duration_milliseconds: one whole deletion on disk. */
  public final Histogram dbCompactionTotal;
  /** etcd_debugging_mvcc_db_compaction_keys_total: revisions a compaction deleted on disk. */
  public final Counter dbCompactionKeys;
  /** etcd_disk_backend_defrag_duration_seconds: one successful defragmentation. */
  public final Histogram defragDuration;
  /** etcd_disk_defrag_inflight: 1 while a defragmentation runs. */
  public final Gauge defragInflight;
  /** etcd_debugging_lease_granted_total: grants applied here. */
  public final Counter leasesGranted;
  /** etcd_debugging_lease_revoked_total: revokes applied here. */
  public final Counter leasesRevoked;
  /** etcd_debugging_lease_renewed_total: keep-alives this member's keeper took as leader. */
  public final Counter leasesRenewed;
  /** etcd_debugging_lease_ttl_total: the TTL of each lease granted, in seconds. */
  public final Histogram leaseTtl;

  /**
   * @param extensive etcd's {@code --metrics=extensive}: adds grpc_server_handling_seconds
   * @param jvm whether to register the JVM's and process's metrics (process_*, jvm_*)
   */
  public EtcdMetrics(MemberGauges gauges, boolean extensive, boolean jvm) {
    this(extensive, jvm, true);
    readGauges(gauges);
  }

  /**
   * The counters and histograms only: a member creates its metrics before the parts that feed
   * them, and hands its gauges over with {@link #readGauges} once it can answer them.
   *
   * @param counting false for akka-etcd's {@code --experimental-metrics-off}: see {@link #counting()}
   */
  public EtcdMetrics(boolean extensive, boolean jvm, boolean counting) {
    this.counting = counting;
    leaderChanges = counter("etcd_server_leader_changes_seen_total", "The number of leader changes seen.");
    proposalsFailed = counter("etcd_server_proposals_failed_total", "The total number of failed proposals seen.");
    walFsyncDuration = histogram("etcd_disk_wal_fsync_duration_seconds",
        "The latency distributions of fsync called by WAL.", Buckets.DISK);
    backendCommitDuration = histogram("etcd_disk_backend_commit_duration_seconds",
        "The latency distributions of commit called by backend.", Buckets.DISK);
    peerRoundTripTime = histogram("etcd_network_peer_round_trip_time_seconds",
        "Round-Trip-Time histogram between peers", Buckets.PEER_RTT, "To");
    peerSentBytes = counter("etcd_network_peer_sent_bytes_total", "The total number of bytes sent to peers.", "To");
    peerSentFailures = counter("etcd_network_peer_sent_failures_total",
        "The total number of send failures from peers.", "To");
    peerReceivedBytes = counter("etcd_network_peer_received_bytes_total",
        "The total number of bytes received from peers.", "From");
    activePeers = Gauge.builder().name("etcd_network_active_peers").help("The current number of active peer connections.")
        .labelNames("Local", "Remote").register(registry);
    disconnectedPeers = counter("etcd_network_disconnected_peers_total", "The total number of disconnected peers.",
        "Local", "Remote");
    clientGrpcSentBytes = counter("etcd_network_client_grpc_sent_bytes_total",
        "The total number of bytes sent to grpc clients.");
    clientGrpcReceivedBytes = counter("etcd_network_client_grpc_received_bytes_total",
        "The total number of bytes received from grpc clients.");
    journalWriteBatch = Histogram.builder().name("akka_etcd_journal_write_batch_events")
        .help("Raft log events per journal write batch (one LevelDB write and sync each).")
        .classicOnly().classicUpperBounds(Buckets.BATCH).register(registry);
    mvccRanges = counter("etcd_mvcc_range_total", "Total number of ranges seen by this member.");
    mvccPuts = counter("etcd_mvcc_put_total", "Total number of puts seen by this member.");
    mvccDeletes = counter("etcd_mvcc_delete_total", "Total number of deletes seen by this member.");
    mvccTxns = counter("etcd_mvcc_txn_total", "Total number of txns seen by this member.");
    twin("etcd_debugging_mvcc_range_total", "Total number of ranges seen by this member.", mvccRanges);
    twin("etcd_debugging_mvcc_put_total", "Total number of puts seen by this member.", mvccPuts);
    twin("etcd_debugging_mvcc_delete_total", "Total number of deletes seen by this member.", mvccDeletes);
    twin("etcd_debugging_mvcc_txn_total", "Total number of txns seen by this member.", mvccTxns);
    totalPutSize = Gauge.builder().name("etcd_debugging_mvcc_total_put_size_in_bytes")
        .help("The total size of put kv pairs seen by this member.").register(registry);
    indexCompactionPause = histogram("etcd_debugging_mvcc_index_compaction_pause_duration_milliseconds",
        "Bucketed histogram of index compaction pause duration.", Buckets.INDEX_COMPACTION_PAUSE);
    dbCompactionPause = histogram("etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds",
        "Bucketed histogram of db compaction pause duration.", Buckets.DB_COMPACTION_PAUSE);
    dbCompactionTotal = histogram("etcd_debugging_mvcc_db_compaction_total_duration_milliseconds",
        "Bucketed histogram of db compaction total duration.", Buckets.DB_COMPACTION_TOTAL);
    dbCompactionKeys = counter("etcd_debugging_mvcc_db_compaction_keys_total", "Total number of db keys compacted.");
    defragDuration = histogram("etcd_disk_backend_defrag_duration_seconds",
        "The latency distribution of backend defragmentation.", Buckets.DEFRAG);
    defragInflight = Gauge.builder().name("etcd_disk_defrag_inflight")
        .help("Whether or not defrag is active on the member. 1 means active, 0 means not.").register(registry);
    leasesGranted = counter("etcd_debugging_lease_granted_total", "The total number of granted leases.");
    leasesRevoked = counter("etcd_debugging_lease_revoked_total", "The total number of revoked leases.");
    leasesRenewed = counter("etcd_debugging_lease_renewed_total", "The number of renewed leases seen by the leader.");
    leaseTtl = histogram("etcd_debugging_lease_ttl_total", "Bucketed histogram of lease TTLs.", Buckets.LEASE_TTL);
    grpc = new GrpcServerMetrics(registry, extensive);
    if (!jvm) {
      jvmRegistered.complete(null);
    }
  }

  /** Registers the gauges read from {@code gauges} at scrape time; once per member. */
  public void readGauges(MemberGauges gauges) {
    gauge("etcd_server_has_leader", "Whether or not a leader exists. 1 is existence, 0 is not.",
        () -> gauges.hasLeader() ? 1 : 0);
    gauge("etcd_server_proposals_committed_total", "The total number of consensus proposals committed.",
        gauges::committedIndex);
    gauge("etcd_server_proposals_applied_total", "The total number of consensus proposals applied.",
        gauges::appliedIndex);
    gauge("etcd_server_proposals_pending", "The current number of pending proposals to commit.",
        gauges::pendingProposals);
    gauge("etcd_server_quota_backend_bytes", "Current backend storage quota size in bytes.",
        gauges::quotaBackendBytes);
    GaugeWithCallback.builder().name("etcd_server_version")
        .help("Which version is running. 1 for 'server_version' label with current version.")
        .labelNames("server_version").callback(cb -> cb.call(1, gauges.serverVersion())).register(registry);
    gauge("etcd_mvcc_db_total_size_in_bytes", "Total size of the underlying database physically allocated in bytes.",
        gauges::dbTotalSize);
    gauge("etcd_debugging_mvcc_db_total_size_in_bytes",
        "Total size of the underlying database physically allocated in bytes.", gauges::dbTotalSize);
    GaugeWithCallback.builder().name("etcd_cluster_version")
        .help("Which version is running. 1 for 'cluster_version' label with current cluster version")
        .labelNames("cluster_version").callback(cb -> {
          String v = gauges.clusterVersion();
          if (!v.isEmpty()) {
            cb.call(1, v); // etcd sets it once the cluster version is decided
          }
        }).register(registry);
    gauge("etcd_mvcc_db_total_size_in_use_in_bytes",
        "Total size of the underlying database logically in use in bytes.", gauges::dbTotalSizeInUse);
    gauge("etcd_debugging_mvcc_keys_total", "Total number of keys.", gauges::keysTotal);
    gauge("etcd_debugging_mvcc_current_revision", "The current revision of store.", gauges::currentRevision);
    gauge("etcd_debugging_mvcc_compact_revision", "The revision of the last compaction in store.",
        gauges::compactRevision);
    gauge("etcd_server_is_leader", "Whether or not this member is a leader. 1 if is, 0 otherwise.",
        () -> gauges.isLeader() ? 1 : 0);
    gauge("etcd_server_is_learner", "Whether or not this member is a learner. 1 if is, 0 otherwise.",
        () -> gauges.isLearner() ? 1 : 0);
    GaugeWithCallback.builder().name("etcd_server_id")
        .help("Server or member ID in hexadecimal format. 1 for 'server_id' label with current ID.")
        .labelNames("server_id").callback(cb -> cb.call(1, Long.toHexString(gauges.memberId()))).register(registry);
    gauge("akka_etcd_raft_inbox_depth",
        "Requests and peer messages queued for the Raft member (its inbox, drained once per flush).",
        gauges::raftInboxDepth);
    gauge("akka_etcd_applier_lag_entries", "Committed Raft entries not yet applied to the store.",
        () -> Math.max(0, gauges.committedIndex() - gauges.appliedIndex()));
    gauge("etcd_debugging_mvcc_watch_stream_total", "Total number of watch streams.", gauges::watchStreams);
    gauge("etcd_debugging_mvcc_watcher_total", "Total number of watchers.", gauges::watchers);
    gauge("etcd_debugging_mvcc_slow_watcher_total", "Total number of unsynced slow watchers.", gauges::slowWatchers);
    gauge("etcd_debugging_mvcc_pending_events_total", "Total number of pending events to be sent.",
        gauges::pendingEvents);
    CounterWithCallback.builder().name("etcd_debugging_mvcc_events_total")
        .help("Total number of events sent by this member.")
        .callback(cb -> cb.call(gauges.eventsSent())).register(registry);
  }

  /**
   * Whether the request path, the journal and the peers feed the counters and histograms: false
   * only with akka-etcd's {@code --experimental-metrics-off} (for the metrics-on/off throughput
   * A/B, loadtest/compare --metrics-ab); /metrics then still serves the gauges.
   */
  public boolean counting() {
    return counting;
  }

  /**
   * One MVCC transaction ended (etcd's metricsTxnWrite.End): its ranges, puts and deletes, and
   * the bytes of its puts' keys and values. A txn is counted when it did more than one of them.
   */
  public void txnEnded(int ranges, int puts, int deletes, long putBytes) {
    if (ranges + puts + deletes > 1) {
      mvccTxns.inc();
    }
    if (ranges > 0) {
      mvccRanges.inc(ranges);
    }
    if (puts > 0) {
      mvccPuts.inc(puts);
      totalPutSize.inc(putBytes);
    }
    if (deletes > 0) {
      mvccDeletes.inc(deletes);
    }
  }

  /** grpc_server_*: fed by the request pipeline's metrics hook. */
  public GrpcServerMetrics grpc() {
    return grpc;
  }

  /**
   * Registers the JVM's metrics on a thread of their own, once; the first scrape does it if no one
   * did. A member calls it once it serves: the registration (JMX beans, JFR) took CPU from the
   * start itself (issue #32).
   */
  public void registerJvmMetrics() {
    if (jvmRegistered.isDone() || !jvmRegistering.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(() -> {
      try {
        JvmMetrics.builder().register(registry);
        jvmRegistered.complete(null);
      } catch (RuntimeException | Error e) {
        jvmRegistered.completeExceptionally(e);
      }
    }, "akka-etcd-jvm-metrics");
    t.setDaemon(true);
    t.start();
  }

  /** The registry, with the JVM's metrics in it once they are registered. */
  public PrometheusRegistry registry() {
    registerJvmMetrics();
    jvmRegistered.join();
    return registry;
  }

  /** A scrape in Prometheus text format 0.0.4 ({@link #CONTENT_TYPE}), as etcd's /metrics serves. */
  public byte[] scrape() {
    registerJvmMetrics();
    jvmRegistered.join();
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private void gauge(String name, String help, LongSupplier value) {
    GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong())).register(registry);
  }

  /** A counter read from {@code source} at scrape time: etcd 3.4 keeps both names, equal. */
  private void twin(String name, String help, Counter source) {
    CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(source.get())).register(registry);
  }

  private Counter counter(String name, String help, String... labels) {
    return Counter.builder().name(name).help(help).labelNames(labels).register(registry);
  }

  private Histogram histogram(String name, String help, double[] bounds, String... labels) {
    return Histogram.builder().name(name).help(help).labelNames(labels).classicOnly()
        .classicUpperBounds(bounds).register(registry);
  }
}
