package io.akkaetcd.server;

import static io.akkaetcd.server.FlagSupport.Condition.FALSE;
import static io.akkaetcd.server.FlagSupport.Condition.NOT_EMPTY;
import static io.akkaetcd.server.FlagSupport.Condition.NOT_ZERO;
import static io.akkaetcd.server.FlagSupport.Condition.TRUE;
import static io.akkaetcd.server.FlagSupport.Condition.otherThan;

import io.akkaetcd.server.FlagSupport.Condition;
import java.util.ArrayList;
import java.util.List;

/**
 * Every flag etcd 3.4.23 accepts (those its --help lists, in its order, then the ones it accepts
 * without listing them), with what akka-etcd does with each. {@code docs/flags.md} is generated
 * from this table ({@link FlagsDoc}); a test checks it against the real {@code etcd --help}.
 */
final class EtcdFlags {
  static final String V2 = "etcd's v2 API (akka-etcd serves v3 only)";
  static final String DISCOVERY = "bootstrap by discovery (list the members in --initial-cluster)";

  private static final String BBOLT = "akka-etcd stores its data in LevelDB, not bbolt";

  private final List<Flag> flags = new ArrayList<>();
  private String section = "";

  private EtcdFlags() {}

  static List<Flag> all() {
    EtcdFlags t = new EtcdFlags();
    t.member();
    t.clustering();
    t.security();
    t.auth();
    t.monitoring();
    t.logging();
    t.proxy();
    t.experimental();
    t.unlisted();
    return List.copyOf(t.flags);
  }

  private void member() {
    section = "Member";
    on("name", "default", FlagType.STRING, "This member's name, unique in the cluster.");
    on("data-dir", "${name}.etcd", FlagType.STRING, "Directory of the Raft journal and the key-value store.");
    ignored("wal-dir", "", FlagType.STRING, "A separate directory for the write-ahead log.",
        "the Raft journal is always kept under --data-dir");
    on("snapshot-count", "100000", FlagType.UINT,
        "Applied entries between log snapshots; min(5000, this) entries stay for lagging followers.");
    on("heartbeat-interval", "100", FlagType.UINT, "Raft tick in milliseconds.");
    on("election-timeout", "1000", FlagType.UINT, "Election timeout in milliseconds.");
    ignored("initial-election-tick-advance", "true", FlagType.BOOL, "Shorten the first election after a start.",
        "akka-etcd's Raft core times its first election by itself");
    on("listen-peer-urls", "http://localhost:2380", FlagType.URLS, "Where the peer transport listens (its first URL).");
    on("listen-client-urls", "http://localhost:2379", FlagType.URLS, "Where clients connect (gRPC, /health, /version).");
    ignored("max-snapshots", "5", FlagType.UINT, "Log snapshot files to keep (0: all).",
        "log snapshots under member/snap are pruned by akka-etcd itself");
    ignored("max-wals", "5", FlagType.UINT, "Write-ahead log files to keep (0: all).",
        "the Raft journal is trimmed behind log snapshots by akka-etcd itself");
    on("quota-backend-bytes", "0", FlagType.INT, "Size of the store beyond which writes fail with NOSPACE (0: 2 GiB; negative: no quota).");
    ignored("backend-batch-interval", "", FlagType.DURATION, "Longest wait before a backend commit.", BBOLT
        + "; every applied batch is one LevelDB write");
    ignored("backend-batch-limit", "0", FlagType.INT, "Most operations in one backend commit.", BBOLT
        + "; every applied batch is one LevelDB write");
    on("max-txn-ops", "128", FlagType.UINT, "Most operations in one transaction.");
    on("max-request-bytes", "1572864", FlagType.UINT, "Largest client request in bytes.");
    ignored("max-concurrent-streams", "math.MaxUint32", FlagType.UINT32, "Most concurrent streams per client connection.",
        "HTTP/2 stream limits are Akka HTTP's own here");
    ignored("grpc-keepalive-min-time", "5s", FlagType.DURATION, "Shortest interval at which clients may ping.",
        "gRPC keepalive is not tuned by flags here");
    ignored("grpc-keepalive-interval", "2h", FlagType.DURATION, "How often the server pings an idle connection.",
        "gRPC keepalive is not tuned by flags here");
    ignored("grpc-keepalive-timeout", "20s", FlagType.DURATION, "How long to wait for a ping's answer.",
        "gRPC keepalive is not tuned by flags here");
  }

  private void clustering() {
    section = "Clustering";
    on("initial-advertise-peer-urls", "http://localhost:2380", FlagType.URLS,
        "This member's peer URLs; with the token they give its id.");
    on("initial-cluster", "default=http://localhost:2380", FlagType.STRING, "The bootstrap members, name=url,...");
    on("initial-cluster-state", "new", FlagType.CLUSTER_STATE, "'new', or 'existing' to join after member add.");
    on("initial-cluster-token", "etcd-cluster", FlagType.STRING, "Part of every member and cluster id.");
    on("advertise-client-urls", "http://localhost:2379", FlagType.URLS, "Client URLs shown to clients (member list).");
    refused("discovery", "", FlagType.STRING, "Discovery service URL for bootstrapping.", NOT_EMPTY, DISCOVERY);
    ignored("discovery-fallback", "proxy", FlagType.FALLBACK, "What to do when discovery fails.",
        "it applies only with --discovery");
    ignored("discovery-proxy", "", FlagType.STRING, "HTTP proxy for the discovery service.",
        "it applies only with --discovery");
    refused("discovery-srv", "", FlagType.STRING, "DNS SRV domain for bootstrapping.", NOT_EMPTY, DISCOVERY);
    ignored("discovery-srv-name", "", FlagType.STRING, "Suffix of the DNS SRV name.",
        "it applies only with --discovery-srv");
    on("strict-reconfig-check", "true", FlagType.BOOL,
        "Refuse membership changes that could lose the quorum (false: no check).");
    flag("pre-vote", "false", FlagType.BOOL, "Run Raft's pre-vote phase before elections.",
        FlagSupport.ignored(FALSE, "akka-etcd's Raft always runs the pre-vote phase"));
    on("auto-compaction-retention", "0", FlagType.STRING,
        "Periodic: hours or a duration; revision: revisions to keep. 0: off.");
    on("auto-compaction-mode", "periodic", FlagType.STRING, "'periodic' or 'revision'.");
    refused("enable-v2", "false", FlagType.BOOL, "Serve etcd's v2 API.", TRUE, V2);
  }

  private void security() {
    section = "Security";
    tls("cert-file", "Client TLS certificate.");
    tls("key-file", "Client TLS key.");
    tlsSwitch("client-cert-auth", "Require client certificates.");
    tls("client-crl-file", "Revoked client certificates.");
    tls("client-cert-allowed-hostname", "Hostname a client certificate must carry.");
    tls("trusted-ca-file", "CA for client certificates.");
    tlsSwitch("auto-tls", "Client TLS with a generated certificate.");
    tls("peer-cert-file", "Peer TLS certificate.");
    tls("peer-key-file", "Peer TLS key.");
    tlsSwitch("peer-client-cert-auth", "Require peer certificates.");
    tls("peer-trusted-ca-file", "CA for peer certificates.");
    tls("peer-cert-allowed-cn", "CN a peer certificate must carry.");
    tls("peer-cert-allowed-hostname", "Hostname a peer certificate must carry.");
    tlsSwitch("peer-auto-tls", "Peer TLS with a generated certificate.");
    tls("peer-crl-file", "Revoked peer certificates.");
    tls("cipher-suites", "TLS cipher suites, comma-separated.");
    on("cors", "*", FlagType.URLS_OR_STAR, "Comma-separated origins allowed by CORS ('*': any).");
    ignored("host-whitelist", "*", FlagType.STRING, "Host headers accepted on plain HTTP.",
        "akka-etcd does not check Host headers");
  }

  private void auth() {
    section = "Auth";
    on("auth-token", "simple", FlagType.STRING, "Auth token kind and options ('simple' or 'jwt,...').");
    on("bcrypt-cost", "10", FlagType.UINT, "bcrypt cost of stored passwords (4 to 31).");
    on("auth-token-ttl", "300", FlagType.UINT, "Seconds a simple token lives.");
  }

  private void monitoring() {
    section = "Profiling and Monitoring";
    ignored("enable-pprof", "false", FlagType.BOOL, "Serve Go's profiler under /debug/pprof/.", TRUE,
        "there is no Go runtime to profile; use the JDK's tools (jcmd, Flight Recorder)");
    on("metrics", "basic", FlagType.STRING,
        "Metrics detail: 'basic' or 'extensive' (adds grpc_server_handling_seconds).");
    on("listen-metrics-urls", "", FlagType.URLS, "Extra listeners serving /metrics and /health only.");
  }

  private void logging() {
    section = "Logging";
    on("logger", "capnslog", FlagType.STRING, "'capnslog' (text lines) or 'zap' (JSON lines as etcd's zap writes them).");
    on("log-outputs", "default", FlagType.STRING, "stderr, stdout, default (stderr) or file paths, comma-separated.");
    on("log-level", "info", FlagType.STRING, "debug, info, warn, error, dpanic, panic or fatal.");
  }

  private void proxy() {
    section = "v2 Proxy (to be deprecated in v4)";
    refused("proxy", "off", FlagType.PROXY, "v2 proxy mode: 'off', 'readonly' or 'on'.", otherThan("off"),
        "etcd's v2 proxy");
    for (String[] p : new String[][] {{"proxy-failure-wait", "5000"}, {"proxy-refresh-interval", "30000"},
        {"proxy-dial-timeout", "1000"}, {"proxy-write-timeout", "5000"}, {"proxy-read-timeout", "0"}}) {
      ignored(p[0], p[1], FlagType.UINT, "v2 proxy timing in milliseconds.", "akka-etcd has no v2 proxy");
    }
  }

  private void experimental() {
    section = "Experimental feature";
    on("experimental-initial-corrupt-check", "false", FlagType.BOOL,
        "Compare hashes with peers before serving; refuse to start on a mismatch.");
    on("experimental-corrupt-check-time", "0s", FlagType.DURATION,
        "Interval of the leader's corruption check, which raises the CORRUPT alarm (0s: off).");
    refused("experimental-enable-v2v3", "", FlagType.STRING, "Serve v2 on the v3 store under this prefix.",
        NOT_EMPTY, V2);
    ignored("experimental-backend-bbolt-freelist-type", "array", FlagType.STRING, "bbolt's freelist: array or map.",
        BBOLT);
    on("experimental-enable-lease-checkpoint", "false", FlagType.BOOL,
        "Checkpoint remaining lease TTLs through Raft.");
    ignored("experimental-compaction-batch-limit", "1000", FlagType.INT, "Revisions deleted per compaction batch.",
        "compaction deletes 1000 revisions per batch, fixed");
    ignored("experimental-peer-skip-client-san-verification", "false", FlagType.BOOL,
        "Skip the SAN check of peer client certificates.", TRUE,
        "akka-etcd never checks a peer client certificate's SANs against its address (docs/tls.md)");
    on("experimental-watch-progress-notify-interval", "10m", FlagType.DURATION,
        "How often synced watches that asked get a progress notification.");
    ignored("experimental-warning-apply-duration", "100ms", FlagType.DURATION, "Warn about applies slower than this.",
        "akka-etcd does not log slow applies");
    section = "Unsafe feature";
    refused("force-new-cluster", "false", FlagType.BOOL, "Restart as a new one-member cluster from the data.", TRUE,
        "recovery by --force-new-cluster");
    section = "TO BE DEPRECATED";
    on("debug", "false", FlagType.BOOL, "Log at debug level (as --log-level debug).");
    ignored("log-package-levels", "", FlagType.STRING, "Log levels per etcd package.",
        "akka-etcd has no per-package levels; use --log-level");
  }

  /** Flags etcd 3.4.23 accepts without listing them in --help, and akka-etcd's own. */
  private void unlisted() {
    section = "";
    on("config-file", "", FlagType.STRING,
        "A YAML file of settings (keys as the flags' names); the other flags and ETCD_* variables are then ignored.");
    on("version", "false", FlagType.BOOL, "Print the version and exit.");
    on("log-output", "default", FlagType.STRING, "Old name of --log-outputs.");
    on("enable-grpc-gateway", "true", FlagType.BOOL, "Serve the JSON gateway under /v3/.");
    on("experimental-enable-lease-checkpoint-persist", "false", FlagType.BOOL,
        "Keep checkpointed lease TTLs across restarts (needs --experimental-enable-lease-checkpoint).");
    flag("experimental-strict-auth-matrix", "false", FlagType.BOOL,
        "akka-etcd's own: etcd 3.5.28's stricter auth; Compact, Alarm, Status, MemberList need root, leases a user, a keep-alive write on its keys, nested txns are checked (docs/auth.md).",
        FlagSupport.own());
    flag("experimental-learner-auto-promote", "false", FlagType.BOOL,
        "akka-etcd's own (etcd #15107): the leader promotes a learner once it is in sync (etcd's 90 % rule, strict reconfiguration).",
        FlagSupport.own());
    flag("experimental-max-proposals-in-flight", "0", FlagType.UINT,
        "akka-etcd's own (etcd #21513): clients' proposals waiting to be applied at this member beyond this many are refused at once with \"etcdserver: too many requests\" (0, the default: no bound, as etcd).",
        FlagSupport.own());
    flag("experimental-max-proposal-bytes-in-flight", "0", FlagType.UINT,
        "akka-etcd's own: as --experimental-max-proposals-in-flight, for the bytes of those proposals; one proposal alone is always admitted (0, the default: no bound).",
        FlagSupport.own());
    flag("experimental-metrics-off", "false", FlagType.BOOL,
        "akka-etcd's own: requests, journal writes and peers feed no counter or histogram (/metrics keeps the gauges); for the metrics-on/off A/B of loadtest/compare --metrics-ab.",
        FlagSupport.own());
    ignored("unsafe-no-fsync", "false", FlagType.BOOL, "Write without fsync.", TRUE,
        "akka-etcd fsyncs every journal write regardless");
    for (String name : List.of("cluster-active-size", "cluster-remove-delay", "cluster-sync-interval", "config",
        "force", "max-result-buffer", "max-retry-attempts", "peer-heartbeat-interval", "peer-election-timeout",
        "retry-interval", "snapshot", "v", "vv", "test.coverprofile", "test.outputdir")) {
      flag(name, "", FlagType.LEGACY, "Kept by etcd 3.4 only to be ignored (etcd 0.4 and Go test flags).",
          FlagSupport.legacy());
    }
  }

  /** A TLS file or setting (docs/tls.md). */
  private void tls(String name, String help) {
    on(name, "", FlagType.STRING, help);
  }

  /** A TLS switch (docs/tls.md). */
  private void tlsSwitch(String name, String help) {
    on(name, "false", FlagType.BOOL, help);
  }

  private void on(String name, String def, FlagType type, String help) {
    flag(name, def, type, help, FlagSupport.implemented(""));
  }

  /** Warned about when given with a value other than its default. */
  private void ignored(String name, String def, FlagType type, String help, String why) {
    flag(name, def, type, help, FlagSupport.ignored(def.isEmpty() ? NOT_EMPTY : otherThan(def), why));
  }

  private void ignored(String name, String def, FlagType type, String help, Condition when, String why) {
    flag(name, def, type, help, FlagSupport.ignored(when, why));
  }

  private void refused(String name, String def, FlagType type, String help, Condition when, String feature) {
    flag(name, def, type, help, FlagSupport.refused(when, feature));
  }

  private void flag(String name, String def, FlagType type, String help, FlagSupport support) {
    flags.add(new Flag(name, def, type, section, help, support));
  }
}
