package io.akkaetcd.embed;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.akkaetcd.server.Flag;
import io.akkaetcd.server.FlagType;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * An embedded member's settings: etcd's, by etcd's names and with etcd's defaults (etcd's
 * embed.Config). Immutable; built by {@link #builder()} or read from HOCON ({@link #fromConfig}).
 * Every value goes through the launcher's flag parsing and checks, so a bad one fails
 * {@link Builder#build()} with etcd's own text ({@link Flags.FlagException}). The akka-etcd.*
 * tunables of reference.conf (request timeout, dispatchers, the own system's Akka settings) come
 * from {@link #settings()}.
 */
public final class EtcdConfig {
  /** Flags etcd takes in milliseconds, which HOCON may give as durations ("100ms", "1 second"). */
  private static final Set<String> MILLIS = Set.of("heartbeat-interval", "election-timeout");

  private final ServerConfig server;
  private final Config settings;

  private EtcdConfig(ServerConfig server, Config settings) {
    this.server = server;
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the etcd settings under {@code akka-etcd} of {@code config}, by etcd's flag names
   * ({@code akka-etcd.name}, {@code akka-etcd.data-dir}, {@code akka-etcd.listen-client-urls = [...]}):
   * URL lists as HOCON lists or comma-separated strings; {@code heartbeat-interval} and
   * {@code election-timeout} as etcd's milliseconds or HOCON durations. Keys left out keep etcd's
   * defaults. {@code config} also gives the akka-etcd.* tunables ({@link #settings()}).
   */
  public static EtcdConfig fromConfig(Config config) {
    Builder b = builder().settings(config);
    for (Flag flag : Flags.KNOWN) {
      String path = "akka-etcd.\"" + flag.name() + "\"";
      if (config.hasPathOrNull(path)) {
        String value = hoconValue(config, path, flag);
        if (flag.name().equals("listen-client-urls")) {
          b.listenClientUrls(value.isEmpty() ? List.of() : Arrays.asList(value.split(",")));
        } else {
          b.flag(flag.name(), value);
        }
      }
    }
    return b.build();
  }

  /**
   * The launcher's path: settings already parsed and checked from a command line. {@code settings}
   * gives the akka-etcd.* tunables.
   */
  public static EtcdConfig fromServerConfig(ServerConfig server, Config settings) {
    return new EtcdConfig(server, settings);
  }

  private static String hoconValue(Config config, String path, Flag flag) {
    if (config.getIsNull(path)) {
      return "";
    }
    ConfigValue v = config.getValue(path);
    if (v.valueType() == ConfigValueType.LIST) {
      return config.getList(path).stream().map(e -> String.valueOf(e.unwrapped()).trim())
          .collect(Collectors.joining(","));
    }
    if (v.valueType() == ConfigValueType.OBJECT) {
      throw new Flags.FlagException("invalid value for akka-etcd." + flag.name() + ": expected a value, got an object");
    }
    String s = String.valueOf(v.unwrapped()).trim();
    // A HOCON duration in place of etcd's number or Go duration; anything else goes to etcd's check as is.
    try {
      if (MILLIS.contains(flag.name()) && !s.matches("\\d+")) {
        return Long.toString(config.getDuration(path).toMillis());
      }
      if (flag.type() == FlagType.DURATION && FlagType.DURATION.check(s) != null) {
        return config.getDuration(path).toMillis() + "ms";
      }
    } catch (ConfigException.BadValue e) {
      return s;
    }
    return s;
  }

  public String name() {
    return server.name();
  }

  public Path dataDir() {
    return server.dataDir();
  }

  /** Empty: no client listener; the member is served by its in-process client only. */
  public List<URI> listenClientUrls() {
    return server.listenClientUrls();
  }

  public List<URI> advertiseClientUrls() {
    return server.advertiseClientUrls();
  }

  public List<URI> listenPeerUrls() {
    return server.listenPeerUrls();
  }

  public List<URI> initialAdvertisePeerUrls() {
    return server.initialAdvertisePeerUrls();
  }

  public Map<String, List<URI>> initialCluster() {
    return server.initialCluster();
  }

  public String initialClusterState() {
    return server.initialClusterState();
  }

  public String initialClusterToken() {
    return server.initialClusterToken();
  }

  public Duration heartbeatInterval() {
    return server.heartbeatInterval();
  }

  public Duration electionTimeout() {
    return server.electionTimeout();
  }

  public long snapshotCount() {
    return server.snapshotCount();
  }

  public long quotaBackendBytes() {
    return server.quotaBackendBytes();
  }

  public int maxRequestBytes() {
    return server.maxRequestBytes();
  }

  public int maxTxnOps() {
    return server.maxTxnOps();
  }

  public String autoCompactionMode() {
    return server.autoCompactionMode();
  }

  public String autoCompactionRetention() {
    return server.autoCompactionRetention();
  }

  /** The config the akka-etcd.* tunables are read from (reference.conf under the application's). */
  public Config settings() {
    return settings;
  }

  /** The checked settings as the server takes them. */
  public ServerConfig serverConfig() {
    return server;
  }

  /**
   * Collects etcd settings by etcd's flag names; {@link #build()} checks them all at once, as
   * etcd checks its flags at start. Setters not called keep etcd's defaults.
   */
  public static final class Builder {
    private final Map<String, String> flags = new LinkedHashMap<>();
    private boolean noClientListener;
    private Config settings;

    private Builder() {}

    /** {@code --name} (etcd: "default"). */
    public Builder name(String name) {
      return flag("name", name);
    }

    /** {@code --data-dir} (etcd: "${name}.etcd", in the working directory). */
    public Builder dataDir(Path dataDir) {
      return flag("data-dir", dataDir.toString());
    }

    public Builder dataDir(String dataDir) {
      return flag("data-dir", dataDir);
    }

    /**
     * {@code --listen-client-urls} (etcd: http://localhost:2379). None at all: the member binds no
     * client listener and is served by its in-process client only.
     */
    public Builder listenClientUrls(List<String> urls) {
      return flag("listen-client-urls", String.join(",", urls));
    }

    public Builder listenClientUrls(String... urls) {
      return listenClientUrls(List.of(urls));
    }

    /** {@code --advertise-client-urls} (etcd: http://localhost:2379). */
    public Builder advertiseClientUrls(String... urls) {
      return flag("advertise-client-urls", String.join(",", urls));
    }

    /** {@code --listen-peer-urls} (etcd: http://localhost:2380). */
    public Builder listenPeerUrls(String... urls) {
      return flag("listen-peer-urls", String.join(",", urls));
    }

    /** {@code --initial-advertise-peer-urls} (etcd: http://localhost:2380). */
    public Builder initialAdvertisePeerUrls(String... urls) {
      return flag("initial-advertise-peer-urls", String.join(",", urls));
    }

    /** {@code --initial-cluster}, as etcd writes it: {@code name1=http://host:port,name2=...}. */
    public Builder initialCluster(String initialCluster) {
      return flag("initial-cluster", initialCluster);
    }

    /** {@code --initial-cluster} from member names to peer URLs, in the map's order. */
    public Builder initialCluster(Map<String, String> peerUrlByName) {
      List<String> parts = new ArrayList<>();
      peerUrlByName.forEach((n, u) -> parts.add(n + "=" + u));
      return initialCluster(String.join(",", parts));
    }

    /** {@code --initial-cluster-state}: "new" (etcd's default) or "existing". */
    public Builder initialClusterState(String state) {
      return flag("initial-cluster-state", state);
    }

    /** {@code --initial-cluster-token} (etcd: "etcd-cluster"). */
    public Builder initialClusterToken(String token) {
      return flag("initial-cluster-token", token);
    }

    /** {@code --heartbeat-interval} (etcd: 100 ms). */
    public Builder heartbeatInterval(Duration interval) {
      return flag("heartbeat-interval", Long.toString(interval.toMillis()));
    }

    /** {@code --election-timeout} (etcd: 1000 ms). */
    public Builder electionTimeout(Duration timeout) {
      return flag("election-timeout", Long.toString(timeout.toMillis()));
    }

    /** {@code --snapshot-count} (etcd: 100000). */
    public Builder snapshotCount(long count) {
      return flag("snapshot-count", Long.toString(count));
    }

    /** {@code --quota-backend-bytes} (etcd: 0, meaning 2 GiB). */
    public Builder quotaBackendBytes(long bytes) {
      return flag("quota-backend-bytes", Long.toString(bytes));
    }

    /** {@code --max-request-bytes} (etcd: 1.5 MiB). */
    public Builder maxRequestBytes(long bytes) {
      return flag("max-request-bytes", Long.toString(bytes));
    }

    /** {@code --max-txn-ops} (etcd: 128). */
    public Builder maxTxnOps(long ops) {
      return flag("max-txn-ops", Long.toString(ops));
    }

    /** {@code --auto-compaction-mode}: "periodic" (etcd's default) or "revision". */
    public Builder autoCompactionMode(String mode) {
      return flag("auto-compaction-mode", mode);
    }

    /** {@code --auto-compaction-retention} (etcd: "0", off). */
    public Builder autoCompactionRetention(String retention) {
      return flag("auto-compaction-retention", retention);
    }

    /** Any other flag akka-etcd implements, by etcd's name without dashes (bin/akka-etcd --help). */
    public Builder flag(String etcdFlagName, String value) {
      if (etcdFlagName.equals("listen-client-urls")) {
        noClientListener = value.isEmpty();
        if (noClientListener) {
          flags.remove(etcdFlagName);
          return this;
        }
      }
      flags.put(etcdFlagName, value);
      return this;
    }

    /** Where the akka-etcd.* tunables are read from; ConfigFactory.load() if not given. */
    public Builder settings(Config settings) {
      this.settings = settings;
      return this;
    }

    /** Checks every setting as etcd checks its flags; throws {@link Flags.FlagException} with etcd's text. */
    public EtcdConfig build() {
      String[] args = flags.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
      // No ETCD_* environment: an embedded member takes only what its application gives it.
      ServerConfig server = ServerConfig.fromFlags(Flags.parse(args, Map.of()));
      if (noClientListener) {
        server = server.withoutClientListeners();
      }
      return new EtcdConfig(server, settings != null ? settings : ConfigFactory.load());
    }
  }
}
