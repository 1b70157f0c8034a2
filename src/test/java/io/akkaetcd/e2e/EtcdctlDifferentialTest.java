package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Plays each script under {@code src/test/resources/e2e/diff} with Debian's etcdctl against a fresh
 * real etcd and a fresh akka-etcd, started with the same flags, and requires the same stdout,
 * stderr and exit code for every command, errors included.
 *
 * <p>Every script is played twice: with bare {@code host:port} endpoints and with
 * {@code http://host:port} ({@link EndpointForm}). The two servers start at once and each command
 * runs against both at once (each server's commands stay in script order).
 *
 * <p>Script format: one etcdctl invocation per line (arguments split on spaces, double quotes
 * group); a line ending in {@code <<} takes the following lines up to {@code >>} as its stdin;
 * a line starting with {@code ? } compares only exit code and stderr (for answers whose values
 * differ by design: version, database size, raft index, hash);
 * {@code # flags: ...} gives both servers extra flags; other {@code #} lines are comments. A line
 * ending in {@code => NAME} captures the second word of its output (the id in {@code lease grant}'s
 * answer) on each server, and {@code ${NAME}} in later lines stands for that server's value
 * ({@code ${ENDPOINT}} is the server's own endpoint; {@code ${a*64}} is 64 times "a"). A line
 * {@code restart} restarts both servers on their data directories (SIGTERM, start, wait until
 * healthy), each just before its next command.
 *
 * <p>Normalized before comparing, and nothing else: etcdctl's own retry log lines on stderr
 * (timestamps and random client ids), captured values (lease ids, in hex and decimal), the
 * endpoint (each server has its own port) and the time a health check took; a lease's
 * {@code remaining(Ns)} and a JSON {@code "ttl"} may differ by two seconds (see {@link #sameButForTwoSecondsOfTtl}).
 * Revisions, member and cluster ids and error texts must match exactly.
 */
class EtcdctlDifferentialTest {

  record Command(List<String> args, String stdin, int line, String capture, boolean outcomeOnly) {}

  record Script(String name, List<String> flags, List<Command> commands) {}

  @TestFactory
  Stream<DynamicTest> sameOutputAsEtcd() throws IOException, URISyntaxException {
    Path dir = Path.of(getClass().getResource("/e2e/diff").toURI());
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
    }
    assertTrue(files.size() >= 5, "scripts found in " + dir);
    // -Ddiff.scripts=alarm.txt,quota.txt plays only those
    String only = System.getProperty("diff.scripts", "");
    if (!only.isEmpty()) {
      List<String> names = List.of(only.split(","));
      files = files.stream().filter(f -> names.contains(f.getFileName().toString())).toList();
    }
    return files.stream().flatMap(f -> Stream.of(EndpointForm.values()).map(form -> DynamicTest.dynamicTest(
        f.getFileName() + " [" + form + "]", () -> play(parse(f), form))));
  }

  /** Runs etcd's side of each step while the test's thread runs akka-etcd's: the sides share nothing. */
  private static final ExecutorService ETCD_SIDE = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "etcdctl-diff-etcd-side");
    t.setDaemon(true);
    return t;
  });

  /** One server of a play: its endpoint, its captured values, and whether a restart is due before its next command. */
  private static final class Side {
    final ServerProcess server;
    final String endpoint;
    final Map<String, String> vars = new HashMap<>();
    boolean restartPending;

    Side(ServerProcess server, EndpointForm form) {
      this.server = server;
      this.endpoint = form.of(server);
      vars.put("ENDPOINT", endpoint);
    }
  }

  private static void play(Script script, EndpointForm form) {
    // One advertised peer URL for both: the same member and cluster ids in every header.
    String peer = "http://127.0.0.1:" + Ports.free();
    CompletableFuture<ServerProcess> etcdStarted = CompletableFuture.supplyAsync(
        () -> ServerProcess.start(ServerProcess.Kind.ETCD, peer, script.flags()), ETCD_SIDE);
    ServerProcess akkaStarted;
    try {
      akkaStarted = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, peer, script.flags());
    } catch (RuntimeException e) {
      etcdStarted.thenAccept(ServerProcess::close);
      throw e;
    }
    try (ServerProcess akka = akkaStarted; ServerProcess etcd = etcdStarted.join()) {
      Side etcdSide = new Side(etcd, form);
      Side akkaSide = new Side(akka, form);
      List<String> mismatches = new ArrayList<>();
      for (Command c : script.commands()) {
        if (c.args().equals(List.of(RESTART))) {
          etcdSide.restartPending = true;
          akkaSide.restartPending = true;
          continue;
        }
        CompletableFuture<Etcdctl.Result> etcdAnswer = CompletableFuture.supplyAsync(
            () -> normalize(run(etcdSide, c), etcdSide.vars), ETCD_SIDE);
        Etcdctl.Result actual = normalize(run(akkaSide, c), akkaSide.vars);
        Etcdctl.Result expected = etcdAnswer.join(); // a failure comes as its cause, wrapped
        if (c.outcomeOnly()) {
          expected = new Etcdctl.Result("", expected.stderr(), expected.exit());
          actual = new Etcdctl.Result("", actual.stderr(), actual.exit());
        }
        if (!expected.equals(actual) && !sameButForTwoSecondsOfTtl(expected, actual)) {
          mismatches.add(script.name() + ":" + c.line() + " [" + form + "] etcdctl " + String.join(" ", c.args())
              + "\n== etcd:\n" + expected.all() + "== akka-etcd:\n" + actual.all());
        }
      }
      if (!mismatches.isEmpty()) {
        fail(mismatches.size() + " of " + script.commands().size() + " commands differ:\n\n"
            + String.join("\n", mismatches) + "\n== akka-etcd log:\n" + akka.log());
      }
    }
  }

  /**
   * Runs a command against the side's endpoint with its captured values, capturing a new one if
   * asked; the endpoint in the output reads {@code ${ENDPOINT}}. A side with a restart pending is
   * restarted first (each just before its own next command, so that the other's restart takes
   * none of its leases' time).
   */
  private static Etcdctl.Result run(Side side, Command c) {
    if (side.restartPending) {
      side.restartPending = false;
      side.server.stop();
      side.server.start();
    }
    Map<String, String> vars = side.vars;
    String endpoint = side.endpoint;
    List<String> args = c.args().stream().map(a -> substitute(a, vars)).toList();
    Etcdctl.Result r = Etcdctl.run(endpoint, c.stdin() == null ? null : substitute(c.stdin(), vars), args);
    if (c.capture() != null) {
      String[] words = r.stdout().trim().split("\\s+");
      if (words.length < 2) {
        throw new AssertionError("nothing to capture from " + args + ": " + r.all());
      }
      vars.put(c.capture(), words[1]);
    }
    return new Etcdctl.Result(r.stdout().replace(endpoint, "${ENDPOINT}"), r.stderr().replace(endpoint, "${ENDPOINT}"),
        r.exit());
  }

  private static final java.util.regex.Pattern REPEAT = java.util.regex.Pattern.compile("\\$\\{(\\w)\\*(\\d+)\\}");

  private static String substitute(String s, Map<String, String> vars) {
    for (Map.Entry<String, String> v : vars.entrySet()) {
      s = s.replace("${" + v.getKey() + "}", v.getValue());
    }
    return REPEAT.matcher(s).replaceAll(m -> m.group(1).repeat(Integer.parseInt(m.group(2))));
  }

  private static final java.util.regex.Pattern REMAINING = java.util.regex.Pattern.compile("(remaining\\(|\"ttl\":)(\\d+)");

  /**
   * Whether two outputs are the same but for lease time-to-live values at most two seconds apart
   * ({@code remaining(Ns)}, or {@code "ttl":N} in JSON):
   * etcd rounds the time left down to whole seconds, and each server is asked at its own moment.
   * After a restart that moment is when its health check passed and etcdctl started again (on a
   * busy machine a second or two after the leader gave its leases their TTL); a lease counted from
   * before the restart would be many seconds short.
   */
  static boolean sameButForTwoSecondsOfTtl(Etcdctl.Result expected, Etcdctl.Result actual) {
    java.util.regex.Matcher e = REMAINING.matcher(expected.stdout());
    java.util.regex.Matcher a = REMAINING.matcher(actual.stdout());
    while (e.find()) {
      if (!a.find() || Math.abs(Long.parseLong(e.group(2)) - Long.parseLong(a.group(2))) > 2) {
        return false;
      }
    }
    String unify = "$1N";
    return new Etcdctl.Result(REMAINING.matcher(expected.stdout()).replaceAll(unify), expected.stderr(),
        expected.exit()).equals(new Etcdctl.Result(REMAINING.matcher(actual.stdout()).replaceAll(unify),
        actual.stderr(), actual.exit()));
  }

  static Etcdctl.Result normalize(Etcdctl.Result r, Map<String, String> vars) {
    Etcdctl.Result n = normalize(r);
    String out = n.stdout();
    String err = n.stderr();
    for (Map.Entry<String, String> v : vars.entrySet()) {
      String name = "${" + v.getKey() + "}";
      String hex = v.getValue();
      out = out.replace(hex, name);
      err = err.replace(hex, name);
      try {
        String decimal = Long.toUnsignedString(Long.parseUnsignedLong(hex, 16));
        out = out.replace(decimal, name);
        err = err.replace(decimal, name);
      } catch (NumberFormatException ignored) {
        // not a hex id: only its text is replaced
      }
    }
    return new Etcdctl.Result(out, err, n.exit());
  }

  static Etcdctl.Result normalize(Etcdctl.Result r) {
    String out = r.stdout().replaceAll("took = \\S+", "took = T");
    String err = Arrays.stream(r.stderr().split("\n", -1))
        .filter(l -> !l.startsWith("{\"level\":\"warn\""))
        .collect(Collectors.joining("\n")).replaceAll("took = \\S+", "took = T");
    return new Etcdctl.Result(out, err, r.exit());
  }

  /** The script line that restarts both servers on their data directories. */
  static final String RESTART = "restart";

  static Script parse(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> flags = new ArrayList<>();
    List<Command> commands = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("# flags:")) {
        flags.addAll(split(line.substring("# flags:".length())));
        continue;
      }
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int at = i + 1;
      String capture = null;
      int arrow = line.lastIndexOf(" => ");
      if (arrow > 0) {
        capture = line.substring(arrow + 4).trim();
        line = line.substring(0, arrow);
      }
      String stdin = null;
      if (line.endsWith("<<")) {
        line = line.substring(0, line.length() - 2);
        StringBuilder in = new StringBuilder();
        while (!lines.get(++i).equals(">>")) {
          in.append(lines.get(i)).append('\n');
        }
        stdin = in.toString();
      }
      boolean outcomeOnly = line.startsWith("? ");
      commands.add(new Command(split(outcomeOnly ? line.substring(2) : line), stdin, at, capture, outcomeOnly));
    }
    return new Script(file.getFileName().toString(), flags, commands);
  }

  /** Splits on spaces; double quotes group (and are removed), as a shell would for these scripts. */
  static List<String> split(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char ch : line.trim().toCharArray()) {
      if (ch == '"') {
        quoted = !quoted;
        any = true;
      } else if (ch == ' ' && !quoted) {
        if (any) {
          out.add(cur.toString());
          cur.setLength(0);
          any = false;
        }
      } else {
        cur.append(ch);
        any = true;
      }
    }
    if (any) {
      out.add(cur.toString());
    }
    return out;
  }
}
