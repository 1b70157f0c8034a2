package io.akkaetcd.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Parses etcd's command line as etcd 3.4 does (Go's flag package): {@code --flag value} and
 * {@code --flag=value} with one or two dashes, booleans bare or as {@code --flag=true|false},
 * parsing stops at the first argument that is not a flag, {@code -h}/{@code --help} ask for help.
 * Then {@code ETCD_*} environment variables fill the flags not given on the command line. A flag
 * given on the command line wins over its environment variable, which wins over etcd's default
 * (etcd refuses a flag given both ways; we follow its precedence instead of failing, and say so in
 * the README). What akka-etcd does with each flag is in {@link EtcdFlags} and {@link FlagSupport}.
 */
public final class Flags {

  /** Every flag etcd 3.4.23 accepts, with what akka-etcd does with it. */
  public static final List<Flag> KNOWN = EtcdFlags.all();

  private static final Map<String, Flag> BY_NAME = new LinkedHashMap<>();

  static {
    KNOWN.forEach(f -> BY_NAME.put(f.name(), f));
  }

  private Flags() {}

  /**
   * A parsed command line: every flag's value (booleans as "true"/"false"), which flags were given
   * (on the command line or in the environment), whether help was asked for, and the warnings to
   * log once logging is set up.
   */
  public record Parsed(Map<String, String> values, Set<String> given, boolean help, List<String> warnings) {
    public boolean version() {
      return "true".equals(values.get("version"));
    }
  }

  /** Parses {@code args} over {@code env}; throws {@link FlagException} on anything etcd would refuse. */
  public static Map<String, String> parse(String[] args, Map<String, String> env) {
    return parseAll(args, env).values();
  }

  /** As {@link #parse}, keeping what was given and the warnings. */
  public static Parsed parseAll(String[] args, Map<String, String> env) {
    Map<String, String> values = defaults();
    Set<String> given = new LinkedHashSet<>();
    List<String> warnings = new ArrayList<>();
    int i = 0;
    for (; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--")) {
        i++;
        break;
      }
      if (arg.length() < 2 || arg.charAt(0) != '-') {
        break;
      }
      String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
      if (body.isEmpty() || body.startsWith("-") || body.startsWith("=")) {
        throw FlagException.usage("bad flag syntax: " + arg);
      }
      int eq = body.indexOf('=');
      String name = eq >= 0 ? body.substring(0, eq) : body;
      String value = eq >= 0 ? body.substring(eq + 1) : null;
      Flag flag = BY_NAME.get(name);
      if (flag == null) {
        if (name.equals("help") || name.equals("h")) {
          return new Parsed(values, given, true, warnings);
        }
        throw FlagException.usage("flag provided but not defined: -" + name);
      }
      if (value == null && !flag.bool()) {
        if (i + 1 >= args.length) {
          throw FlagException.usage("flag needs an argument: -" + name);
        }
        value = args[++i];
      }
      if (value == null) {
        value = "true";
      }
      String reason = flag.type().check(value);
      if (reason != null) {
        throw FlagException.usage(flag.type() == FlagType.BOOL
            ? "invalid boolean value \"" + value + "\" for -" + name + ": " + reason
            : "invalid value \"" + value + "\" for flag -" + name + ": " + reason);
      }
      values.put(name, flag.type().canonical(value));
      given.add(name);
      if (flag.support().state() == FlagSupport.State.LEGACY) {
        warnings.add("flag \"-" + name + "\" is no longer supported - ignoring.");
      }
    }
    if (i < args.length) {
      throw FlagException.verify("'" + args[i] + "' is not a valid flag");
    }
    if ("true".equals(values.get("version"))) {
      return new Parsed(values, given, false, warnings);
    }
    String configFile = given.contains("config-file") ? values.get("config-file") : env.getOrDefault("ETCD_CONFIG_FILE", "");
    if (configFile.isEmpty()) {
      fromEnvironment(env, values, given, warnings);
    } else {
      fromConfigFile(configFile, values, given, warnings);
    }
    if (values.get("data-dir").equals("${name}.etcd")) {
      values.put("data-dir", values.get("name") + ".etcd");
    }
    checkSupport(values, given, warnings);
    return new Parsed(values, given, false, warnings);
  }

  /**
   * etcdmain's rule for a command line (flags or ETCD_* variables, not a config file): a
   * --listen-client-urls given without --advertise-client-urls is refused, since the default
   * advertised URL would then name an address the member may not listen on. (Its exception for a
   * member that may become a v2 proxy never applies here: --proxy and --discovery are refused.)
   */
  public static void checkClientUrlsAdvertised(Parsed parsed) {
    if (parsed.values().getOrDefault("config-file", "").isEmpty() && parsed.given().contains("listen-client-urls")
        && !parsed.given().contains("advertise-client-urls")) {
      throw new FlagException(FlagException.Kind.VERIFY,
          "--advertise-client-urls is required when --listen-client-urls is set explicitly",
          "When listening on specific address(es), this etcd process must advertise accessible url(s) to each"
              + " connected client.");
    }
  }

  /** Every flag at etcd's default (booleans canonical). */
  private static Map<String, String> defaults() {
    Map<String, String> values = new LinkedHashMap<>();
    for (Flag f : KNOWN) {
      String d = f.defaultValue();
      values.put(f.name(), f.bool() ? FlagType.BOOL.canonical(d.isEmpty() ? "false" : d) : d);
    }
    return values;
  }

  /** etcd's SetFlagsFromEnv: ETCD_<NAME> for each flag not on the command line. */
  private static void fromEnvironment(Map<String, String> env, Map<String, String> values, Set<String> given,
      List<String> warnings) {
    Set<String> known = new LinkedHashSet<>();
    for (Flag f : KNOWN) {
      known.add(f.envName());
      String value = env.get(f.envName());
      if (value == null || given.contains(f.name())) {
        continue;
      }
      String reason = f.type().check(value);
      if (reason != null) {
        throw FlagException.verify("invalid value \"" + value + "\" for " + f.envName() + ": " + reason);
      }
      values.put(f.name(), f.type().canonical(value));
      given.add(f.name());
      if (f.support().state() == FlagSupport.State.LEGACY) {
        warnings.add("flag \"-" + f.name() + "\" is no longer supported - ignoring.");
      }
    }
    new TreeMap<>(env).forEach((k, v) -> {
      if (k.startsWith("ETCD_") && !known.contains(k)) {
        warnings.add("unrecognized environment variable " + k + "=" + v);
      }
    });
  }

  /**
   * etcd's --config-file (or ETCD_CONFIG_FILE): the file's settings over the defaults; the other
   * command-line flags and the environment are ignored, as etcd ignores them.
   */
  private static void fromConfigFile(String file, Map<String, String> values, Set<String> given,
      List<String> warnings) {
    ConfigFile.Settings settings = ConfigFile.read(java.nio.file.Path.of(file), BY_NAME);
    values.clear();
    values.putAll(defaults());
    values.put("config-file", file);
    given.clear();
    values.putAll(settings.values());
    given.addAll(settings.values().keySet());
    warnings.addAll(settings.warnings());
    warnings.add("loaded server configuration from " + file
        + "; other command-line flags and ETCD_* variables are ignored");
  }

  /** Refuses a given flag that asks for a missing feature; warns about one that has no effect. */
  private static void checkSupport(Map<String, String> values, Set<String> given, List<String> warnings) {
    for (String name : given) {
      Flag f = BY_NAME.get(name);
      String value = values.get(name);
      if (!f.support().triggeredBy(value)) {
        continue;
      }
      switch (f.support().state()) {
        case REFUSED -> throw FlagException.fatal("--" + name + "=" + quoted(value) + " needs "
            + f.support().note() + ", which akka-etcd does not have; leave the flag out or give it "
            + quoted(offValue(f)));
        case IGNORED -> warnings.add("--" + name + "=" + quoted(value) + " is accepted and has no effect: "
            + f.support().note());
        default -> { }
      }
    }
  }

  /** The value that asks for nothing: the default, unless the default itself is refused. */
  static String offValue(Flag f) {
    if (!f.support().triggeredBy(f.defaultValue())) {
      return f.defaultValue();
    }
    return f.bool() ? "false" : "";
  }

  private static String quoted(String v) {
    return "'" + v + "'";
  }

  /** True for a name etcd takes on its command line (every flag, and -h/-help). */
  public static boolean isKnown(String name) {
    return BY_NAME.containsKey(name) || name.equals("help") || name.equals("h");
  }

  /** The lines etcd prints after a malformed command line, before exiting with status 2. */
  public static String usageLines() {
    return """
        Usage:

          akka-etcd [flags]
            Start an etcd-compatible member.

          akka-etcd --version
            Show the version of akka-etcd.

          akka-etcd -h | --help
            Show the help information about akka-etcd and its flags.

          akka-etcd --config-file FILE
            Read the settings from a YAML file (keys as the flags' names); other flags are then ignored.

          akka-etcd snapshot restore FILE [--data-dir DIR --name NAME --initial-cluster ...]
          akka-etcd snapshot status FILE [-w table|json|simple]
            Restore an etcd or akka-etcd snapshot into a data dir; show a snapshot's hash,
            revision, key count and size (etcdctl's snapshot restore and status).
        """;
  }

  /** The text printed by -h and --help: etcd's sections, each flag with its default and state. */
  public static String usage() {
    StringBuilder sb = new StringBuilder(usageLines());
    sb.append("\nEvery flag also comes as ETCD_<NAME> in the environment (--max-txn-ops: ETCD_MAX_TXN_OPS).\n");
    String section = null;
    for (Flag f : KNOWN) {
      if (!f.listed()) {
        continue;
      }
      if (!f.section().equals(section)) {
        section = f.section();
        sb.append('\n').append(section).append(":\n");
      }
      sb.append("  --").append(f.name()).append(" '").append(f.defaultValue()).append("'\n");
      sb.append("    ").append(f.help());
      FlagSupport s = f.support();
      switch (s.state()) {
        case IGNORED -> sb.append(" [akka-etcd: no effect; ").append(s.note()).append(']');
        case REFUSED -> sb.append(" [akka-etcd: only ").append(quoted(offValue(f))).append("; needs ")
            .append(s.note()).append(']');
        default -> { }
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /**
   * A flag etcd would refuse, and how the command line reports it: {@code USAGE} (a malformed
   * command line: the message and the usage lines, exit 2, as Go's flag package), {@code VERIFY}
   * (a value etcd's checks refuse after parsing: "error verifying flags", exit 1), or {@code FATAL}
   * (one line, exit 2: a flag asking for a feature akka-etcd does not have, an unknown log level).
   */
  public static final class FlagException extends RuntimeException {
    public enum Kind { USAGE, VERIFY, FATAL }

    private final Kind kind;
    /** A second line etcd prints after the error, or null. */
    private final String followUp;

    /** A value refused after parsing, as etcd's "error verifying flags". */
    public FlagException(String message) {
      this(Kind.VERIFY, message);
    }

    public FlagException(Kind kind, String message) {
      this(kind, message, null);
    }

    public FlagException(Kind kind, String message, String followUp) {
      super(message);
      this.kind = kind;
      this.followUp = followUp;
    }

    static FlagException usage(String message) {
      return new FlagException(Kind.USAGE, message);
    }

    static FlagException verify(String message) {
      return new FlagException(Kind.VERIFY, message);
    }

    static FlagException fatal(String message) {
      return new FlagException(Kind.FATAL, message);
    }

    public Kind kind() {
      return kind;
    }

    public int exitCode() {
      return kind == Kind.VERIFY ? 1 : 2;
    }

    /** What the command line prints on standard error. */
    public String report() {
      String first = switch (kind) {
        case USAGE -> getMessage() + "\n" + usageLines();
        case VERIFY -> "akka-etcd: error verifying flags, " + getMessage() + ". See 'akka-etcd --help'.\n";
        case FATAL -> "akka-etcd: " + getMessage() + "\n";
      };
      return followUp == null ? first : first + "akka-etcd: " + followUp + "\n";
    }
  }
}
