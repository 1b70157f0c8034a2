package io.akkaetcd.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses etcd's command line: {@code --flag value}, {@code --flag=value}, single or double dash,
 * boolean flags without a value, and {@code ETCD_*} environment variables. A flag given on the
 * command line wins over its environment variable, which wins over etcd's default (etcd refuses
 * a flag given both ways; we follow its precedence instead of failing, and say so in the README).
 */
public final class Flags {

  /** etcd's flags that akka-etcd knows, with etcd v3.5's defaults. */
  public static final List<Flag> KNOWN = List.of(
      Flag.value("name", "default", "Human-readable name for this member."),
      Flag.value("data-dir", "${name}.etcd", "Path to the data directory."),
      Flag.value("listen-client-urls", "http://localhost:2379", "List of URLs to listen on for client traffic."),
      Flag.value("advertise-client-urls", "http://localhost:2379", "List of this member's client URLs to advertise to the public."),
      Flag.value("listen-peer-urls", "http://localhost:2380", "List of URLs to listen on for peer traffic."),
      Flag.value("initial-advertise-peer-urls", "http://localhost:2380", "List of this member's peer URLs to advertise to the rest of the cluster."),
      Flag.value("initial-cluster", "default=http://localhost:2380", "Initial cluster configuration for bootstrapping."),
      Flag.value("initial-cluster-state", "new", "Initial cluster state ('new' or 'existing')."),
      Flag.value("initial-cluster-token", "etcd-cluster", "Initial cluster token for the etcd cluster during bootstrap."),
      Flag.value("max-request-bytes", "1572864", "Maximum client request size in bytes the server will accept."),
      Flag.value("max-txn-ops", "128", "Maximum number of operations permitted in a transaction."),
      Flag.value("quota-backend-bytes", "0", "Raise alarms when backend size exceeds the given quota (0 defaults to low space quota)."),
      Flag.value("snapshot-count", "100000", "Number of committed transactions to trigger a snapshot to disk."),
      Flag.value("heartbeat-interval", "100", "Time (in milliseconds) of a heartbeat interval."),
      Flag.value("election-timeout", "1000", "Time (in milliseconds) for an election to timeout."),
      Flag.value("auto-compaction-mode", "periodic", "Interpret 'auto-compaction-retention' one of: periodic|revision."),
      Flag.value("auto-compaction-retention", "0", "Auto compaction retention length. 0 means disable auto compaction."),
      Flag.value("experimental-watch-progress-notify-interval", "10m", "Duration of periodic watch progress notifications."),
      Flag.value("log-level", "info", "Configures log level. Only supports debug, info, warn, error, panic, or fatal."),
      Flag.bool("version", "Print the version and exit."),
      Flag.bool("help", "Show this help and exit."));

  private Flags() {}

  /** Parses {@code args} over {@code env}; throws {@link FlagException} on anything etcd would refuse. */
  public static Map<String, String> parse(String[] args, Map<String, String> env) {
    Map<String, Flag> byName = new LinkedHashMap<>();
    KNOWN.forEach(f -> byName.put(f.name(), f));
    Map<String, String> values = new LinkedHashMap<>();
    for (Flag f : KNOWN) {
      String fromEnv = env.get(f.envName());
      values.put(f.name(), fromEnv != null ? fromEnv : f.defaultValue());
    }
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("-") || arg.equals("-") || arg.equals("--")) {
        throw new FlagException("'" + arg + "' is not a valid flag");
      }
      String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
      String name = body;
      String value = null;
      int eq = body.indexOf('=');
      if (eq >= 0) {
        name = body.substring(0, eq);
        value = body.substring(eq + 1);
      }
      Flag flag = byName.get(name);
      if (flag == null) {
        throw new FlagException("flag provided but not defined: -" + name);
      }
      if (flag.bool()) {
        if (value == null) {
          value = "true";
        } else if (!value.equals("true") && !value.equals("false")) {
          throw new FlagException("invalid boolean value \"" + value + "\" for -" + name);
        }
      } else if (value == null) {
        if (i + 1 >= args.length) {
          throw new FlagException("flag needs an argument: -" + name);
        }
        value = args[++i];
      }
      values.put(name, value);
    }
    if (values.get("data-dir").equals("${name}.etcd")) {
      values.put("data-dir", values.get("name") + ".etcd");
    }
    return values;
  }

  /** The usage text printed by --help and after a flag error. */
  public static String usage() {
    StringBuilder sb = new StringBuilder();
    sb.append("Usage:\n\n  akka-etcd [flags]\n    Start an etcd-compatible member.\n\n  akka-etcd --version\n"
        + "    Show the version of akka-etcd.\n\nFlags (each also as ETCD_<NAME> in the environment):\n\n");
    for (Flag f : KNOWN) {
      sb.append("  --").append(f.name());
      if (!f.bool()) {
        sb.append(" '").append(f.defaultValue()).append("'");
      }
      sb.append("\n      ").append(f.help()).append('\n');
    }
    return sb.toString();
  }

  /** A flag etcd would refuse: unknown, malformed, missing its value or out of range. */
  public static final class FlagException extends RuntimeException {
    public FlagException(String message) {
      super(message);
    }
  }
}
