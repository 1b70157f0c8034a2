package io.akkaetcd.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code docs/flags.md}: one table row per flag of {@link Flags#KNOWN} with its default and
 * what akka-etcd does with it. {@code FlagsDocTest} fails while the file differs from this output;
 * {@code java -cp target/classes io.akkaetcd.server.FlagsDoc docs/flags.md} rewrites it.
 */
public final class FlagsDoc {
  private FlagsDoc() {}

  public static void main(String[] args) throws IOException {
    Files.writeString(Path.of(args.length > 0 ? args[0] : "docs/flags.md"), markdown());
  }

  public static String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("""
        # etcd's flags in akka-etcd

        Generated from the flag table (`EtcdFlags.java`) by `FlagsDoc`; `FlagsDocTest` fails when this
        file differs from it, and `EtcdHelpFlagsTest` fails when etcd 3.4's `--help` names a flag the
        table lacks, or the table holds a flag the installed etcd refuses.

        Every flag etcd 3.4.23 accepts is accepted, on the command line (`--flag value`, `--flag=value`,
        one or two dashes, booleans bare or `=true|false`) and as `ETCD_<NAME>` in the environment.
        Each is in one of four states:

        - **implemented**: etcd's meaning.
        - **no effect**: accepted; given with a value the table names, it logs one warning line that
          names the flag and says why.
        - **refused**: given with a value the table names (one that turns on a feature akka-etcd does
          not have yet), the member does not start: one line names the feature, exit status 2. Its
          default or "off" value is accepted.
        - **legacy**: a flag etcd 3.4 keeps only to ignore; akka-etcd logs etcd's warning for it too.

        Errors follow etcd: a malformed command line (unknown flag, bad value, missing value) prints
        Go's message and the usage lines and exits with 2; a value refused by the checks after parsing
        (or a bad `ETCD_*` value) prints `error verifying flags, ...` and exits with 1; `-h`, `-help`
        and `--help` print the help and exit with 0. A flag given both ways is taken from the command
        line (etcd refuses to start).

        | flag | etcd's default | state | in akka-etcd |
        |---|---|---|---|
        """);
    for (Flag f : Flags.KNOWN) {
      sb.append("| `--").append(f.name()).append("`").append(f.listed() ? "" : " (not in `--help`'s flag list)")
          .append(" | ").append(f.defaultValue().isEmpty() ? "" : "`" + f.defaultValue() + "`")
          .append(" | ").append(state(f)).append(" | ").append(meaning(f)).append(" |\n");
    }
    sb.append("| `-h`, `-help`, `--help` | | implemented | print the help, exit 0 |\n");
    return sb.toString();
  }

  private static String state(Flag f) {
    FlagSupport s = f.support();
    return switch (s.state()) {
      case IMPLEMENTED -> "implemented";
      case IGNORED -> "no effect when " + s.when().text();
      case REFUSED -> "refused when " + s.when().text();
      case LEGACY -> "legacy";
    };
  }

  private static String meaning(Flag f) {
    FlagSupport s = f.support();
    String text = switch (s.state()) {
      case IMPLEMENTED, LEGACY -> f.help();
      case IGNORED -> f.help() + " No effect: " + s.note() + ".";
      case REFUSED -> f.help() + " Needs " + s.note() + ".";
    };
    return text.replace("|", "\\|");
  }
}
