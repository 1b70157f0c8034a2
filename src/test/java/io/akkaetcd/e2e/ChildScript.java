package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A client script (node, python) run as a child process, its stdout returned. */
final class ChildScript {
  private ChildScript() {}

  /** The absolute path of a script under src/test/resources. */
  static String resource(String script) {
    return Path.of("src/test/resources", script).toAbsolutePath().toString();
  }

  /**
   * What {@code command} printed on stdout; fails, with its stderr too, unless it exits 0 within
   * the time. {@code env} is added to this process's environment.
   */
  static String run(List<String> command, Map<String, String> env, int seconds)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile("child-out", ".txt");
    Path err = Files.createTempFile("child-err", ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().putAll(env);
    Process child = pb.start();
    try {
      child.getOutputStream().close();
      boolean ended = child.waitFor(seconds, TimeUnit.SECONDS);
      String printed = Files.readString(out);
      String all = String.join(" ", command) + "\n" + printed + Files.readString(err);
      assertTrue(ended, "did not end within " + seconds + " s: " + all);
      assertTrue(child.exitValue() == 0, "exited with " + child.exitValue() + ": " + all);
      return printed;
    } finally {
      child.destroyForcibly();
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
