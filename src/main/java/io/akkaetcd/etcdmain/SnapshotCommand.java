package io.akkaetcd.etcdmain;

import io.akkaetcd.bbolt.BboltReader;
import io.akkaetcd.bbolt.SnapshotStatus;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code akka-etcd snapshot restore|status FILE [flags]}: etcdctl's snapshot commands (etcdctl v3
 * snapshot_command.go) with its flags, defaults, output and "Error: ..." lines (exit 1), over
 * snapshots saved from akka-etcd or from etcd.
 */
final class SnapshotCommand {
  /** etcdctl's restore flags and defaults (--data-dir: "<name>.etcd"). */
  private static final Map<String, String> RESTORE_DEFAULTS = Map.of(
      "data-dir", "",
      "name", "default",
      "initial-cluster", "default=http://localhost:2380",
      "initial-cluster-token", "etcd-cluster",
      "initial-advertise-peer-urls", "http://localhost:2380",
      "skip-hash-check", "false");
  private static final Map<String, String> STATUS_DEFAULTS = Map.of("write-out", "simple");

  private static final String USAGE = """
      NAME:
      \tsnapshot - Manages etcd node snapshots

      USAGE:
      \takka-etcd snapshot restore <filename> [options]
      \takka-etcd snapshot status <filename> [-w simple|json|table]

      RESTORE OPTIONS:
            --data-dir=""\t\t\t\t\t\tPath to the data directory
            --initial-advertise-peer-urls="http://localhost:2380"\tList of this member's peer URLs to advertise to the rest of the cluster
            --initial-cluster="default=http://localhost:2380"\t\tInitial cluster configuration for restore bootstrap
            --initial-cluster-token="etcd-cluster"\t\t\tInitial cluster token for the etcd cluster during restore bootstrap
            --name="default"\t\t\t\t\t\tHuman-readable name for this member
            --skip-hash-check[=false]\t\t\t\t\tIgnore snapshot integrity hash value (required if copied from data directory)
      """;

  private SnapshotCommand() {}

  /** Runs the command; returns the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
      out.print(USAGE);
      return 0;
    }
    try {
      return switch (args[0]) {
        case "restore" -> restore(parse(args, RESTORE_DEFAULTS, "restore"), err);
        case "status" -> status(parse(args, STATUS_DEFAULTS, "status"), out);
        default -> throw new CommandException("unknown command \"" + args[0] + "\" for \"akka-etcd snapshot\"");
      };
    } catch (CommandException | SnapshotRestore.RestoreException e) {
      err.println("Error: " + e.getMessage());
    } catch (NoSuchFileException e) {
      err.println("Error: stat " + e.getFile() + ": no such file or directory");
    } catch (IOException | RuntimeException e) {
      err.println("Error: " + (e instanceof Flags.FlagException f ? f.getMessage() : e.toString()));
    }
    return 1;
  }

  private static final class CommandException extends Exception {
    CommandException(String message) {
      super(message);
    }
  }

  private record Parsed(Path file, Map<String, String> flags) {}

  /** {@code --flag=value}, {@code --flag value}, a bare boolean flag, {@code -w} for --write-out; one file. */
  private static Parsed parse(String[] args, Map<String, String> defaults, String command) throws CommandException {
    Map<String, String> flags = new LinkedHashMap<>(defaults);
    List<String> files = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("-")) {
        files.add(arg);
        continue;
      }
      String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
      int eq = body.indexOf('=');
      String name = eq >= 0 ? body.substring(0, eq) : body;
      name = name.equals("w") ? "write-out" : name;
      if (!defaults.containsKey(name)) {
        throw new CommandException("unknown flag: " + arg);
      }
      String value;
      if (eq >= 0) {
        value = body.substring(eq + 1);
      } else if (defaults.get(name).equals("false")) {
        value = "true";
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new CommandException("flag needs an argument: " + arg);
      }
      flags.put(name, value);
    }
    if (files.size() != 1) {
      throw new CommandException("snapshot " + command + " requires exactly one argument");
    }
    return new Parsed(Path.of(files.get(0)), flags);
  }

  private static int restore(Parsed p, PrintStream err) throws IOException, SnapshotRestore.RestoreException {
    Map<String, String> f = p.flags();
    String dataDir = f.get("data-dir").isEmpty() ? f.get("name") + ".etcd" : f.get("data-dir");
    if (!Files.exists(p.file())) {
      throw new NoSuchFileException(p.file().toString());
    }
    // The membership as a member started with these flags would bootstrap it (etcd's ids).
    ServerConfig config = ServerConfig.fromFlags(Flags.parse(new String[] {
        "--name", f.get("name"), "--data-dir", dataDir, "--initial-cluster", f.get("initial-cluster"),
        "--initial-cluster-token", f.get("initial-cluster-token"),
        "--initial-advertise-peer-urls", f.get("initial-advertise-peer-urls")}, Map.of()));
    err.println("restoring snapshot " + p.file() + " into data-dir " + dataDir);
    SnapshotRestore.Restored r = SnapshotRestore.restore(p.file(), Path.of(dataDir), config.bootstrapMembers(),
        Boolean.parseBoolean(f.get("skip-hash-check")));
    err.println("restored snapshot " + p.file() + " into data-dir " + dataDir + ": revision " + r.revision()
        + ", " + r.revisions() + " revisions, member " + config.bootstrapMembers().self());
    return 0;
  }

  private static int status(Parsed p, PrintStream out) throws IOException, CommandException {
    if (!Files.exists(p.file())) {
      throw new NoSuchFileException(p.file().toString());
    }
    SnapshotStatus s;
    try (BboltReader reader = BboltReader.open(p.file())) {
      s = SnapshotStatus.of(reader);
    } catch (IOException e) { // bbolt's open and check errors, printed as etcdctl prints them
      throw new CommandException(e.getMessage());
    }
    String hash = Long.toHexString(s.hash());
    String size = humanBytes(s.totalSize());
    switch (p.flags().get("write-out")) {
      case "json" -> out.println("{\"hash\":" + s.hash() + ",\"revision\":" + s.revision() + ",\"totalKey\":"
          + s.totalKey() + ",\"totalSize\":" + s.totalSize() + "}");
      case "table" -> out.print(table(List.of("HASH", "REVISION", "TOTAL KEYS", "TOTAL SIZE"),
          List.of(hash, Long.toString(s.revision()), Long.toString(s.totalKey()), size)));
      case "simple" -> out.println(hash + ", " + s.revision() + ", " + s.totalKey() + ", " + size);
      default -> throw new CommandException("unknown output format " + p.flags().get("write-out"));
    }
    return 0;
  }

  /** etcdctl's table: headers centred, values right-aligned, one space of padding. */
  static String table(List<String> headers, List<String> values) {
    StringBuilder rule = new StringBuilder("+");
    StringBuilder head = new StringBuilder("|");
    StringBuilder row = new StringBuilder("|");
    for (int i = 0; i < headers.size(); i++) {
      int width = Math.max(headers.get(i).length(), values.get(i).length());
      rule.append("-".repeat(width + 2)).append('+');
      int gap = width - headers.get(i).length();
      head.append(' ').append(" ".repeat(gap / 2)).append(headers.get(i)).append(" ".repeat(gap - gap / 2)).append(" |");
      row.append(' ').append(" ".repeat(width - values.get(i).length())).append(values.get(i)).append(" |");
    }
    return rule + "\n" + head + "\n" + rule + "\n" + row + "\n" + rule + "\n";
  }

  /** go-humanize's Bytes: SI units, one decimal below 10. */
  static String humanBytes(long n) {
    if (n < 10) {
      return n + " B";
    }
    String[] units = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int e = (int) Math.floor(Math.log(n) / Math.log(1000));
    double value = Math.floor(n / Math.pow(1000, e) * 10 + 0.5) / 10;
    // Go's %.Nf rounds the exact value half to even (20.5 kB prints as "20 kB").
    return new java.math.BigDecimal(value).setScale(value < 10 ? 1 : 0, java.math.RoundingMode.HALF_EVEN)
        .toPlainString() + " " + units[e];
  }
}
