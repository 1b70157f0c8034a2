package io.akkaetcd.server;

import io.akkaetcd.compactor.CompactionPolicy;
import io.akkaetcd.server.Flags.FlagException;
import io.akkaetcd.tls.TlsInfo;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A member's validated configuration, built from etcd's flags. Invariants checked here, as etcd
 * checks them at start: election timeout at least 5 heartbeats and at most 50 s, this member named
 * in the initial cluster, URLs of the form {@code http://host:port} or {@code https://host:port},
 * TLS settings etcd would take ({@link TlsInfo}: client and peer side). The flags akka-etcd takes
 * without using them, or refuses, are {@link Flags}' concern, not this record's.
 */
public record ServerConfig(
    String name,
    Path dataDir,
    List<URI> listenClientUrls,
    List<URI> advertiseClientUrls,
    List<URI> listenPeerUrls,
    List<URI> initialAdvertisePeerUrls,
    Map<String, List<URI>> initialCluster,
    String initialClusterState,
    String initialClusterToken,
    int maxRequestBytes,
    int maxTxnOps,
    long quotaBackendBytes,
    long snapshotCount,
    Duration heartbeatInterval,
    Duration electionTimeout,
    String autoCompactionMode,
    String autoCompactionRetention,
    Duration watchProgressNotifyInterval,
    String logLevel,
    boolean strictReconfigCheck,
    boolean learnerAutoPromote,
    boolean leaseCheckpoint,
    boolean leaseCheckpointPersist,
    boolean grpcGateway,
    String cors,
    TlsInfo clientTls,
    TlsInfo peerTls,
    AuthSettings auth,
    MetricsSettings metrics,
    CorruptCheck corruptCheck,
    ProposalLimit proposalLimit) {

  /**
   * --metrics (basic, or extensive: adds grpc_server_handling_seconds) and --listen-metrics-urls
   * (extra listeners serving /metrics and /health only); akka-etcd's --experimental-metrics-off
   * turns counting off ({@code counting} false).
   */
  public record MetricsSettings(boolean extensive, List<URI> listenUrls, boolean counting) {
    public static final MetricsSettings DEFAULT = new MetricsSettings(false, List.of(), true);

    static MetricsSettings fromFlags(Map<String, String> v) {
      String kind = v.getOrDefault("metrics", "basic");
      if (!kind.equals("basic") && !kind.equals("extensive")) {
        throw new FlagException("invalid value \"" + kind + "\" for flag -metrics: valid values are \"basic\", \"extensive\"");
      }
      String listen = v.getOrDefault("listen-metrics-urls", "");
      return new MetricsSettings(kind.equals("extensive"),
          listen.isBlank() ? List.of() : urls(v, "listen-metrics-urls"),
          !"true".equals(v.get("experimental-metrics-off")));
    }
  }

  /**
   * --experimental-initial-corrupt-check, and --experimental-corrupt-check-time (zero: no
   * periodic check).
   */
  public record CorruptCheck(boolean initial, Duration interval) {
    public static final CorruptCheck OFF = new CorruptCheck(false, Duration.ZERO);

    /** etcd waits time.After(interval): a negative one checks back to back, as 1 ms does here. */
    public CorruptCheck {
      interval = interval.isNegative() ? Duration.ofMillis(1) : interval;
    }
  }

  /**
   * akka-etcd's --experimental-max-proposals-in-flight and --experimental-max-proposal-bytes-in-flight:
   * clients' proposals waiting to be applied here beyond these are refused with "too many
   * requests" (0: no bound).
   */
  public record ProposalLimit(int proposals, long bytes) {}

  /** --auth-token as given, --bcrypt-cost, --auth-token-ttl, --experimental-strict-auth-matrix. */
  public record AuthSettings(String token, int bcryptCost, Duration tokenTtl, boolean strictMatrix) {
    public static final AuthSettings DEFAULT = new AuthSettings("simple", 10, Duration.ofSeconds(300), false);
  }

  /** etcd's progressReportInterval, kept when the flag is 0 or less. */
  public static final Duration DEFAULT_WATCH_PROGRESS_INTERVAL = Duration.ofMinutes(10);
  /** etcd's minWatchProgressInterval: a shorter positive interval is raised to it, with a warning. */
  public static final Duration MIN_WATCH_PROGRESS_INTERVAL = Duration.ofMillis(100);

  /** The watch progress interval etcd's NewWatchServer makes of the flag's value. */
  public Duration effectiveWatchProgressInterval() {
    if (watchProgressNotifyInterval.isNegative() || watchProgressNotifyInterval.isZero()) {
      return DEFAULT_WATCH_PROGRESS_INTERVAL;
    }
    return watchProgressNotifyInterval.compareTo(MIN_WATCH_PROGRESS_INTERVAL) < 0 ? MIN_WATCH_PROGRESS_INTERVAL
        : watchProgressNotifyInterval;
  }

  /** etcd's DefaultSnapshotCount, which a --snapshot-count of 0 stands for (EtcdServer.start). */
  public static final long DEFAULT_SNAPSHOT_COUNT = 100_000;

  private static long snapshotCount(long given) {
    return given == 0 ? DEFAULT_SNAPSHOT_COUNT : given;
  }

  /** etcd's default backend quota when --quota-backend-bytes is 0 (2 GiB). */
  public static final long DEFAULT_QUOTA_BYTES = 2L * 1024 * 1024 * 1024;

  public static ServerConfig fromFlags(Map<String, String> v) {
    long heartbeat = positiveLong(v, "heartbeat-interval");
    long election = positiveLong(v, "election-timeout");
    if (election < 5 * heartbeat) {
      throw new FlagException("--election-timeout[" + election + "ms] should be at least as 5 times as"
          + " --heartbeat-interval[" + heartbeat + "ms]");
    }
    if (election > 50000) {
      throw new FlagException("--election-timeout[" + election + "ms] is too long, and should be set less than 50 seconds");
    }
    String mode = v.get("auto-compaction-mode");
    if (!mode.equals("periodic") && !mode.equals("revision")) {
      throw new FlagException("unknown auto-compaction-mode \"" + mode + "\"");
    }
    String state = v.get("initial-cluster-state");
    if (!state.equals("new") && !state.equals("existing")) {
      throw new FlagException("invalid value \"" + state + "\" for flag -initial-cluster-state: valid values are \"new\", \"existing\"");
    }
    // negative: no quota at all (etcd's passthroughQuota); 0: the default
    long quota = signedLong(v, "quota-backend-bytes");
    ServerConfig c = new ServerConfig(
        v.get("name"),
        Path.of(v.get("data-dir")),
        urls(v, "listen-client-urls"),
        urls(v, "advertise-client-urls"),
        urls(v, "listen-peer-urls"),
        urls(v, "initial-advertise-peer-urls"),
        initialCluster(v.get("initial-cluster")),
        state,
        v.get("initial-cluster-token"),
        // 0 is a limit too, as in etcd: every proposal too large, every txn with an op too many
        (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(v, "max-request-bytes")),
        (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(v, "max-txn-ops")),
        quota == 0 ? DEFAULT_QUOTA_BYTES : quota,
        snapshotCount(nonNegativeLong(v, "snapshot-count")),
        Duration.ofMillis(heartbeat),
        Duration.ofMillis(election),
        mode,
        v.get("auto-compaction-retention"),
        GoDuration.parse(v.get("experimental-watch-progress-notify-interval").trim(),
            "experimental-watch-progress-notify-interval"),
        v.get("log-level"),
        !"false".equals(v.get("strict-reconfig-check")),
        "true".equals(v.get("experimental-learner-auto-promote")),
        "true".equals(v.get("experimental-enable-lease-checkpoint")),
        "true".equals(v.get("experimental-enable-lease-checkpoint-persist")),
        !"false".equals(v.get("enable-grpc-gateway")),
        v.getOrDefault("cors", "*"),
        TlsInfo.client(v),
        TlsInfo.peer(v),
        new AuthSettings(v.getOrDefault("auth-token", "simple"),
            (int) Math.min(Integer.MAX_VALUE, nonNegativeLong(v, "bcrypt-cost")),
            Duration.ofSeconds(nonNegativeLong(v, "auth-token-ttl")),
            "true".equals(v.get("experimental-strict-auth-matrix"))),
        MetricsSettings.fromFlags(v),
        new CorruptCheck("true".equals(v.get("experimental-initial-corrupt-check")),
            GoDuration.parse(v.get("experimental-corrupt-check-time").trim(), "experimental-corrupt-check-time")),
        new ProposalLimit((int) Math.min(Integer.MAX_VALUE, nonNegativeLong(v, "experimental-max-proposals-in-flight")),
            nonNegativeLong(v, "experimental-max-proposal-bytes-in-flight")));
    if (c.leaseCheckpointPersist && !c.leaseCheckpoint) {
      throw new FlagException("setting experimental-enable-lease-checkpoint-persist requires "
          + "experimental-enable-lease-checkpoint");
    }
    c.autoCompactionPolicy(); // refuses a malformed retention at start, as etcd does
    if (!c.initialCluster.containsKey(c.name)) {
      throw new FlagException("couldn't find local name \"" + c.name + "\" in the initial cluster configuration");
    }
    c.checkOnePeerScheme();
    return c;
  }

  /**
   * The policy of --auto-compaction-mode and --auto-compaction-retention, or null when
   * auto-compaction is off (retention 0). Periodic retention is a Go duration or a whole number of
   * hours; revision retention is a number of revisions.
   */
  public CompactionPolicy autoCompactionPolicy() {
    String r = autoCompactionRetention.trim();
    if (autoCompactionMode.equals("revision")) {
      try {
        return CompactionPolicy.revision(Long.parseLong(r));
      } catch (NumberFormatException e) {
        throw new FlagException("invalid auto-compaction-retention \"" + autoCompactionRetention
            + "\" for revision mode");
      }
    }
    return CompactionPolicy.periodic(GoDuration.parseHoursOrDuration(r));
  }

  /**
   * etcd 3.4 lets http:// and https:// peer URLs mix (each listener has its URL's scheme and every
   * member dials with its peer certificate); a member here has one Artery transport, TCP or TLS,
   * which cannot reach the other kind, so a mixed --initial-cluster would never form: refused.
   */
  private void checkOnePeerScheme() {
    java.util.Set<String> schemes = new java.util.TreeSet<>();
    initialCluster.values().forEach(urls -> urls.forEach(u -> schemes.add(u.getScheme())));
    if (schemes.size() > 1) {
      throw new FlagException("akka-etcd: peer URLs mix " + String.join(" and ", schemes.stream().map(x -> x + "://")
          .toList()) + " in --initial-cluster; one member speaks one peer transport, so every"
          + " peer URL must be http:// or every one https://");
    }
  }

  /** This configuration without client listeners: an embedded member served by its in-process client only. */
  public ServerConfig withoutClientListeners() {
    return new ServerConfig(name, dataDir, List.of(), advertiseClientUrls, listenPeerUrls, initialAdvertisePeerUrls,
        initialCluster, initialClusterState, initialClusterToken, maxRequestBytes, maxTxnOps, quotaBackendBytes,
        snapshotCount, heartbeatInterval, electionTimeout, autoCompactionMode, autoCompactionRetention,
        watchProgressNotifyInterval, logLevel, strictReconfigCheck, learnerAutoPromote, leaseCheckpoint, leaseCheckpointPersist, grpcGateway,
        cors, clientTls, peerTls, auth, metrics, corruptCheck, proposalLimit);
  }

  /** The election timeout in heartbeat ticks (etcd's ElectionTicks). */
  public int electionTicks() {
    return (int) Math.max(1, electionTimeout.toMillis() / heartbeatInterval.toMillis());
  }

  static List<URI> urls(Map<String, String> v, String flag) {
    List<URI> out = new ArrayList<>();
    for (String s : v.get(flag).split(",")) {
      out.add(url(s.trim(), flag));
    }
    return List.copyOf(out);
  }

  static URI url(String s, String flag) {
    try {
      URI u = new URI(s);
      // etcd also takes unix:// peer URLs; only a member alone can serve them here (ListenUrls).
      boolean unixPeer = "unix".equals(u.getScheme()) && !flag.contains("client");
      if (u.getScheme() == null || u.getHost() == null || u.getPort() < 0
          || !(u.getScheme().equals("http") || u.getScheme().equals("https") || unixPeer)) {
        throw new FlagException("invalid URL \"" + s + "\" for --" + flag + " (expected http://host:port)");
      }
      return u;
    } catch (java.net.URISyntaxException e) {
      throw new FlagException("invalid URL \"" + s + "\" for --" + flag + ": " + e.getMessage());
    }
  }

  /** The members --initial-cluster bootstraps, with etcd's ids; this member's entry carries its client URLs. */
  public io.akkaetcd.cluster.ClusterMembers bootstrapMembers() {
    return io.akkaetcd.cluster.ClusterMembers.bootstrap(name, initialCluster, initialClusterToken,
        advertiseClientUrls);
  }

  static Map<String, List<URI>> initialCluster(String s) {
    Map<String, List<URI>> members = new LinkedHashMap<>();
    for (String part : s.split(",")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new FlagException("--initial-cluster: \"" + part + "\" is not of the form name=url");
      }
      members.computeIfAbsent(part.substring(0, eq).trim(), k -> new ArrayList<>())
          .add(url(part.substring(eq + 1).trim(), "initial-cluster"));
    }
    Map<String, List<URI>> out = new LinkedHashMap<>();
    members.forEach((k, l) -> out.put(k, List.copyOf(l)));
    return out;
  }

  private static long positiveLong(Map<String, String> v, String flag) {
    long n = nonNegativeLong(v, flag);
    if (n <= 0) {
      throw new FlagException("--" + flag + " must be positive, got " + v.get(flag));
    }
    return n;
  }

  private static long nonNegativeLong(Map<String, String> v, String flag) {
    long n = signedLong(v, flag);
    if (n < 0) {
      throw new FlagException("--" + flag + " must not be negative, got " + n);
    }
    return n;
  }

  /** An integer flag as etcd reads it (Go's syntax: 0x1f, 017, 1_000), within a long. */
  private static long signedLong(Map<String, String> v, String flag) {
    java.math.BigInteger n = FlagType.goInteger(v.get(flag).trim());
    if (n == null) {
      throw new FlagException("invalid value \"" + v.get(flag) + "\" for flag -" + flag + ": parse error");
    }
    return n.max(java.math.BigInteger.valueOf(Long.MIN_VALUE)).min(java.math.BigInteger.valueOf(Long.MAX_VALUE))
        .longValue();
  }

}
