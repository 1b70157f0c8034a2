package io.akkaetcd.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Plays every script under {@code src/test/resources/it/diff/} on a fresh real etcd and a fresh
 * candidate ({@link ServerUnderTest#candidate()}), and compares each invocation's stdout, stderr
 * and exit code after {@link DiffScript.Session#normalize normalizing}. Every script is its own
 * dynamic test; a mismatch fails it with a line diff of each differing stream (etcd lines
 * "-", candidate lines "+"). Mismatches after the first may be its consequences.
 * {@code -Dit.diff=TEXT} plays only the scripts whose file name contains TEXT.
 */
class EtcdctlDifferentialTest {
  private static final ExecutorService POOL = Executors.newFixedThreadPool(2);

  @AfterAll
  static void shutdown() {
    POOL.shutdownNow();
  }

  @TestFactory
  Stream<DynamicTest> scripts() throws IOException, URISyntaxException {
    URL dir = getClass().getClassLoader().getResource("it/diff");
    if (dir == null) {
      throw new IllegalStateException("no it/diff scripts on the test class path");
    }
    List<Path> files;
    try (Stream<Path> list = Files.list(Path.of(dir.toURI()))) {
      String only = System.getProperty("it.diff", "");
      files = list.filter(p -> p.toString().endsWith(".txt"))
          .filter(p -> p.getFileName().toString().contains(only)).sorted().toList();
    }
    return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(),
        () -> play(DiffScript.parse(f.getFileName().toString(), read(f)))));
  }

  private static String read(Path f) {
    try {
      return Files.readString(f, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void play(DiffScript script) {
    ServerUnderTest.Launcher candidateLauncher = ServerUnderTest.candidate();
    CompletableFuture<ServerUnderTest> refStart =
        CompletableFuture.supplyAsync(() -> ServerUnderTest.ETCD.start(script.flags()), POOL);
    CompletableFuture<ServerUnderTest> candStart =
        CompletableFuture.supplyAsync(() -> candidateLauncher.start(script.flags()), POOL);
    ServerUnderTest reference = null;
    ServerUnderTest candidate = null;
    try {
      reference = joinOrNull(refStart);
      candidate = joinOrNull(candStart);
      if (reference == null) {
        refStart.join();
      }
      if (candidate == null) {
        candStart.join();
      }
      compare(script, reference, candidate);
    } finally {
      closeQuietly(reference);
      closeQuietly(candidate);
    }
  }

  private static ServerUnderTest joinOrNull(CompletableFuture<ServerUnderTest> f) {
    try {
      return f.join();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static void closeQuietly(ServerUnderTest s) {
    if (s != null) {
      s.close();
    }
  }

  private void compare(DiffScript script, ServerUnderTest reference, ServerUnderTest candidate) {
    DiffScript.Session ref = new DiffScript.Session(reference);
    DiffScript.Session cand = new DiffScript.Session(candidate);
    StringBuilder report = new StringBuilder();
    int mismatches = 0;
    for (DiffScript.Step step : script.steps()) {
      CompletableFuture<Etcdctl.Result> r = CompletableFuture.supplyAsync(() -> ref.play(step), POOL);
      CompletableFuture<Etcdctl.Result> c = CompletableFuture.supplyAsync(() -> cand.play(step), POOL);
      Etcdctl.Result expected = r.join();
      Etcdctl.Result actual = c.join();
      String stepReport = compareStep(ref, expected, cand, actual);
      if (!stepReport.isEmpty()) {
        mismatches++;
        report.append("\n### ").append(step.display()).append('\n').append(stepReport);
      }
    }
    if (mismatches > 0) {
      String header = script.name() + ": " + mismatches + " of " + script.steps().size()
          + " invocations differ between etcd (-) and " + candidate.label() + " (+)"
          + (script.flags().isEmpty() ? "" : ", flags " + script.flags()) + "\n";
      System.err.println(header + report);
      fail(header + report + "\n" + candidate.label() + " log tail:\n" + candidate.logTail());
    }
  }

  private static String compareStep(DiffScript.Session ref, Etcdctl.Result expected,
      DiffScript.Session cand, Etcdctl.Result actual) {
    StringBuilder out = new StringBuilder();
    if (expected.exitCode() != actual.exitCode() || expected.timedOut() != actual.timedOut()) {
      out.append("exit code: etcd ").append(describeExit(expected)).append(", candidate ")
          .append(describeExit(actual)).append('\n');
    }
    String eo = ref.normalize(expected.stdout());
    String ao = cand.normalize(actual.stdout());
    if (!eo.equals(ao)) {
      out.append("stdout:\n").append(lineDiff(eo, ao));
    }
    String ee = ref.normalize(expected.stderr());
    String ae = cand.normalize(actual.stderr());
    if (!ee.equals(ae)) {
      out.append("stderr:\n").append(lineDiff(ee, ae));
    }
    return out.toString();
  }

  private static String describeExit(Etcdctl.Result r) {
    return r.timedOut() ? "timed out" : String.valueOf(r.exitCode());
  }

  /** A line diff by longest common subsequence: "  " same, "- " etcd only, "+ " candidate only. */
  static String lineDiff(String expected, String actual) {
    List<String> a = List.of(expected.split("\n", -1));
    List<String> b = List.of(actual.split("\n", -1));
    int[][] lcs = new int[a.size() + 1][b.size() + 1];
    for (int i = a.size() - 1; i >= 0; i--) {
      for (int j = b.size() - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j))
            ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    List<String> out = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.size() || j < b.size()) {
      if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
        out.add("    " + a.get(i));
        i++;
        j++;
      } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
        out.add("  + " + b.get(j));
        j++;
      } else {
        out.add("  - " + a.get(i));
        i++;
      }
    }
    return String.join("\n", out) + "\n";
  }
}
