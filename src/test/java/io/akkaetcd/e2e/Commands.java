package io.akkaetcd.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command of the build's kit (bin/package, a script) to its end, output and error together. */
final class Commands {
  record Result(int exit, String output) {
    Result ok(List<String> cmd) {
      if (exit != 0) {
        throw new AssertionError(cmd + " exited with " + exit + ":\n" + output);
      }
      return this;
    }
  }

  private Commands() {}

  /** Runs {@code cmd} in {@code dir} with {@code env} added; fails past {@code timeoutSeconds}. */
  static Result run(Path dir, Map<String, String> env, long timeoutSeconds, List<String> cmd) {
    try {
      Path out = Files.createTempFile("command", ".out");
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(out.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      p.getOutputStream().close();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new AssertionError(cmd + " did not finish in " + timeoutSeconds + " s:\n" + Files.readString(out));
      }
      Result r = new Result(p.exitValue(), Files.readString(out));
      Files.deleteIfExists(out);
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@link #run} that must exit 0. */
  static Result ok(Path dir, long timeoutSeconds, String... cmd) {
    return run(dir, Map.of(), timeoutSeconds, List.of(cmd)).ok(List.of(cmd));
  }
}
