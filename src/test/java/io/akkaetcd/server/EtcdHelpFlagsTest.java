package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.akkaetcd.server.Flags.FlagException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The flag table against the real etcd 3.4 (Debian's etcd-server; bin/test installs it): every
 * flag its --help names is in the table with the default it shows, every flag in the table is one
 * etcd accepts (hidden ones too), and for bad values both print the same error, as Go's flag
 * package words it. Each etcd run is {@code etcd --flag=value -h}: etcd stops at the first bad
 * flag, and otherwise prints its help without starting.
 */
class EtcdHelpFlagsTest {
  private static final Pattern FLAG_IN_TEXT = Pattern.compile("(?<![\\w-])--([a-z][a-z0-9.-]*)");
  private static final Pattern HELP_LINE = Pattern.compile("^  --([a-z][a-z0-9.-]*) (?:'(.*)'|(\\S+))$");
  private static String help;

  @BeforeAll
  static void etcdHelp() {
    Assumptions.assumeTrue(installed(), "etcd is not installed (Debian's etcd-server)");
    Result r = run(List.of("--help"));
    help = r.stderr + r.stdout; // the usage lines go to stderr, the flags to stdout

  }

  @Test
  void everyFlagEtcdsHelpNamesIsInTheTable() {
    Set<String> named = new LinkedHashSet<>();
    Matcher m = FLAG_IN_TEXT.matcher(help);
    while (m.find()) {
      named.add(m.group(1));
    }
    assertTrue(named.size() > 80, "too few flags found in etcd --help: " + named);
    List<String> missing = named.stream().filter(n -> !Flags.isKnown(n)).toList();
    assertEquals(List.of(), missing, "flags etcd --help names that akka-etcd does not know");
  }

  @Test
  void listedFlagsAndDefaultsAreEtcds() {
    Map<String, String> defaults = new LinkedHashMap<>();
    for (String line : help.split("\n")) {
      Matcher m = HELP_LINE.matcher(line);
      if (m.matches()) {
        defaults.put(m.group(1), m.group(2) != null ? m.group(2) : m.group(3));
      }
    }
    Map<String, String> ours = new LinkedHashMap<>();
    Flags.KNOWN.stream().filter(Flag::listed).forEach(f -> ours.put(f.name(), f.defaultValue()));
    assertEquals(defaults, ours, "the table's listed flags and defaults, in etcd --help's order");
  }

  @Test
  void etcdAcceptsEveryFlagOfTheTableAndRefusesBadValuesAsWeDo() {
    List<String> differences = new ArrayList<>();
    for (Flag f : Flags.KNOWN.stream().filter(f -> !f.support().notEtcds()).toList()) {
      compare(List.of("--" + f.name() + "=zz_bad", "-h"), differences);
    }
    assertEquals(List.of(), differences);
  }

  @Test
  void valuesOfEveryKindParseAsInEtcd() {
    Map<String, List<String>> cases = new LinkedHashMap<>();
    List<String> numbers = List.of("", "-1", "+7", "0x1f", "017", "0b101", "1_000", "99999999999999999999", "1.5");
    cases.put("max-txn-ops", numbers);
    cases.put("quota-backend-bytes", numbers);
    cases.put("max-concurrent-streams", List.of("", "-1", "4294967295", "4294967296", "0x10", "1_0", "x"));
    cases.put("experimental-corrupt-check-time", List.of("", "0", "-3s", "1.5h", "1h30m", "10", "2d", ".5s", "1us"));
    cases.put("strict-reconfig-check", List.of("", "T", "0", "FALSE", "yes", "False", "tRUE"));
    cases.put("listen-client-urls", List.of("", "http://h", "http://h:1/p", "unix://x", "ftp://h:1",
        "http://a:1,http://b:2", "http://[::1]:5", "http://h:1,", "http://h:", "unix://x:1/p", "unixs://x:1"));
    cases.put("cors", List.of("*", "http://h:1", "h"));
    cases.put("initial-cluster-state", List.of("new", "existing", "New", ""));
    cases.put("proxy", List.of("on", "readonly", "off", "x"));
    List<String> differences = new ArrayList<>();
    cases.forEach((flag, values) -> values.forEach(v -> compare(List.of("--" + flag + "=" + v, "-h"), differences)));
    compare(List.of("--max-txn-ops", "-h"), differences);
    compare(List.of("--max-txn-ops"), differences);
    compare(List.of("--no-such-flag"), differences);
    compare(List.of("---name=x"), differences);
    compare(List.of("-=x"), differences);
    compare(List.of("-help=false"), differences);
    compare(List.of("-h", "--no-such-flag"), differences);
    compare(List.of("--name", "x", "--", "-h"), differences);
    assertEquals(List.of(), differences);
  }

  /** Records how etcd and akka-etcd differ on {@code args} (akka-etcd's error, or its help). */
  private static void compare(List<String> args, List<String> differences) {
    Result etcd = run(args);
    String etcdFirst = etcd.stderr.lines().findFirst().orElse("");
    String ours;
    try {
      Flags.Parsed p = Flags.parseAll(args.toArray(String[]::new), Map.of());
      String warned = p.warnings().stream().filter(w -> w.contains("no longer supported")).findFirst().orElse("");
      ours = p.help() ? "exit 0 help " + warned : "no help";
    } catch (FlagException e) {
      ours = "exit " + e.exitCode() + " " + e.getMessage();
    }
    String theirs;
    if (etcd.exit == 0 && etcd.stdout.contains("Member:")) {
      // A legacy flag's warning comes first, after a timestamp and etcd's package name.
      theirs = "exit 0 help " + (etcdFirst.contains("no longer supported")
          ? etcdFirst.substring(etcdFirst.indexOf("flag \"")) : "");
    } else if (etcdFirst.contains("error verifying flags, ")) {
      // etcd logs a check's refusal: "<time> E | etcdmain: error verifying flags, <message>. See 'etcd --help'."
      String message = etcdFirst.substring(etcdFirst.indexOf("error verifying flags, ") + 23);
      theirs = "exit " + etcd.exit + " " + message.substring(0, message.lastIndexOf(". See 'etcd --help'."));
    } else {
      theirs = "exit " + etcd.exit + " " + etcdFirst;
    }
    if (!theirs.strip().equals(ours.strip())) {
      differences.add(args + ": etcd [" + theirs.strip() + "] akka-etcd [" + ours.strip() + "]");
    }
  }

  private record Result(String stdout, String stderr, int exit) {}

  private static boolean installed() {
    try {
      return run(List.of("--version")).exit == 0;
    } catch (IllegalStateException e) {
      return false;
    }
  }

  /** The run's working directory: etcd writes nothing there unless it started a server, which fails the test. */
  private static void deleteTree(Path dir) {
    try {
      io.akkaetcd.os.DirTree.delete(dir);
    } catch (IOException e) {
      // a server the test failed to stop may still write there; the test has failed already
    }
  }

  private static Result run(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of("etcd"));
    cmd.addAll(args);
    try {
      Path out = Files.createTempFile("etcd-help", ".out");
      Path err = Files.createTempFile("etcd-help", ".err");
      // No ETCD_* variables: they would change what etcd parses.
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("ETCD_"));
      Path dir = Files.createTempDirectory("etcd-help");
      pb.directory(dir.toFile());
      try {
        Process p = pb.start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          fail("etcd " + args + " did not exit: it must have started a server");
        }
        return new Result(Files.readString(out), Files.readString(err), p.exitValue());
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        deleteTree(dir);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run etcd", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
