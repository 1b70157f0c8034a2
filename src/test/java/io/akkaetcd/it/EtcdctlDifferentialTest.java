package io.akkaetcd.it;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Plays etcdctl scripts on a fresh real etcd and a fresh akka-etcd, and compares every command's
 * stdout, stderr and exit code.
 *
 * <h2>Script format ({@code src/test/resources/it/diff/*.txt}, one dynamic test per file)</h2>
 * <pre>
 * # a comment; blank lines are ignored
 * &#64;flags --max-request-bytes 1024 --max-txn-ops 3   (server flags for both servers; may repeat)
 * put foo bar                    one etcdctl invocation per line, split like a shell would:
 * put "a key" 'single quoted'    "double" and 'single' quotes group words; \ escapes in "..."
 * txn -i                         lines starting with '|' that follow a command are its stdin:
 * | value("foo") = "bar"         '|' and one space after it are dropped, so a lone '|' is an
 * |                              empty line of input (txn -i needs them between its sections)
 * | put foo baz
 * |
 * </pre>
 * {@code --endpoints} is added by the runner. Before comparing, only these differences are
 * normalized: {@code cluster_id}, {@code member_id} and {@code raft_term} values in JSON output
 * (and ClusterID, MemberID, RaftTerm in {@code -w fields}; they differ between any two clusters), the server's own URL and port (each server listens on
 * its own free port), and the {@code "ts"} timestamp and random client id
 * ({@code endpoint://client-<uuid>/}) of etcdctl's client-side log lines.
 * Revisions are compared as they are: both servers start fresh.
 */
@ExtendWith(LogOnFailure.class)
class EtcdctlDifferentialTest {
  private static final String DIR = "it/diff";
  private static final Pattern IDS =
      Pattern.compile("\"(cluster_id|member_id|raft_term)\":\\s*\\d+");
  private static final Pattern FIELDS =
      Pattern.compile("\"(ClusterID|MemberID|RaftTerm)\" : \\d+");
  private static final Pattern TS = Pattern.compile("\"ts\":\"[^\"]*\"");
  private static final Pattern CLIENT = Pattern.compile("endpoint://client-[0-9a-f-]+/");

  record Command(int line, String text, List<String> args, String stdin) {}

  record Script(List<String> flags, List<Command> commands) {}

  @TestFactory
  Stream<DynamicTest> scripts() throws IOException, URISyntaxException {
    URL url = getClass().getClassLoader().getResource(DIR);
    if (url == null) {
      throw new AssertionError("no " + DIR + " on the test class path");
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(Path.of(url.toURI()))) {
      files = s.filter(p -> p.toString().endsWith(".txt")).sorted().toList();
    }
    return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), f.toUri(),
        () -> play(f)));
  }

  private static void play(Path file) throws Exception {
    Script script = parse(Files.readAllLines(file, StandardCharsets.UTF_8));
    String[] flags = script.flags().toArray(String[]::new);
    try (ServerProcess reference = Targets.reference(flags);
        ServerProcess underTest = Targets.underTest(flags)) {
      CompletableFuture<?> a = CompletableFuture.runAsync(reference::start);
      CompletableFuture<?> b = CompletableFuture.runAsync(underTest::start);
      join(a);
      join(b);
      Etcdctl ref = reference.etcdctl();
      Etcdctl sut = underTest.etcdctl();
      StringBuilder report = new StringBuilder();
      int mismatches = 0;
      for (Command c : script.commands()) {
        Etcdctl.Result expected = ref.run(c.args(), c.stdin());
        Etcdctl.Result actual = sut.run(c.args(), c.stdin());
        String e = normalize(expected, reference);
        String u = normalize(actual, underTest);
        if (!e.equals(u)) {
          mismatches++;
          report.append("\n========== ").append(file.getFileName()).append(':').append(c.line())
              .append(": etcdctl ").append(c.text()).append('\n');
          if (c.stdin() != null) {
            report.append("---------- stdin:\n").append(c.stdin());
          }
          report.append("---------- etcd (").append(reference.kind()).append("):\n").append(e)
              .append("---------- ").append(underTest.kind()).append(":\n").append(u);
        }
      }
      if (mismatches > 0) {
        throw new AssertionError(mismatches + " of " + script.commands().size()
            + " commands differ in " + file.getFileName() + report);
      }
    }
  }

  private static void join(CompletableFuture<?> f) throws Exception {
    try {
      f.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof Exception x) {
        throw x;
      }
      if (e.getCause() instanceof Error x) {
        throw x;
      }
      throw e;
    }
  }

  static String normalize(Etcdctl.Result r, ServerProcess server) {
    String all = "exit code: " + r.exitCode() + "\nstdout:\n" + r.stdout() + "\nstderr:\n"
        + r.stderr() + "\n";
    all = IDS.matcher(all).replaceAll(m -> "\"" + m.group(1) + "\":<" + m.group(1) + ">");
    all = FIELDS.matcher(all).replaceAll(m -> "\"" + m.group(1) + "\" : <" + m.group(1) + ">");
    all = TS.matcher(all).replaceAll("\"ts\":<ts>");
    all = CLIENT.matcher(all).replaceAll("endpoint://client-<uuid>/");
    String hostPort = server.clientUrl().substring("http://".length());
    return all.replace(hostPort, "<endpoint>");
  }

  static Script parse(List<String> lines) {
    List<String> flags = new ArrayList<>();
    List<Command> commands = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      if (t.startsWith("|")) {
        throw new IllegalArgumentException("line " + (i + 1) + ": stdin without a command");
      }
      if (t.startsWith("@flags")) {
        flags.addAll(split(t.substring("@flags".length())));
        continue;
      }
      int commandLine = i + 1;
      StringBuilder stdin = null;
      while (i + 1 < lines.size() && lines.get(i + 1).startsWith("|")) {
        String in = lines.get(++i).substring(1);
        if (in.startsWith(" ")) {
          in = in.substring(1);
        }
        if (stdin == null) {
          stdin = new StringBuilder();
        }
        stdin.append(in).append('\n');
      }
      commands.add(new Command(commandLine, t, split(t), stdin == null ? null : stdin.toString()));
    }
    return new Script(flags, commands);
  }

  /** Splits a command line into words, shell-like: quotes group, backslash escapes inside "...". */
  static List<String> split(String s) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean inWord = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'') {
        inWord = true;
        int j = i + 1;
        for (; j < s.length() && s.charAt(j) != c; j++) {
          char d = s.charAt(j);
          if (c == '"' && d == '\\' && j + 1 < s.length()) {
            d = s.charAt(++j);
          }
          w.append(d);
        }
        if (j >= s.length()) {
          throw new IllegalArgumentException("unterminated quote in: " + s);
        }
        i = j;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(w.toString());
          w.setLength(0);
          inWord = false;
        }
      } else {
        inWord = true;
        w.append(c);
      }
    }
    if (inWord) {
      words.add(w.toString());
    }
    return words;
  }
}
