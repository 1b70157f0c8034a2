package io.akkaetcd.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs Debian's etcdctl (v3 API) against one endpoint. */
final class Etcdctl {
  record Result(String stdout, String stderr, int exit) {
    String all() {
      return "exit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }

    /** stderr's last line: etcdctl's "Error: ..." comes after clientv3's retry warnings, if any. */
    String error() {
      String[] lines = stderr.strip().split("\n");
      return lines[lines.length - 1] + "\n";
    }
  }

  private Etcdctl() {}

  static Result run(String endpoint, String stdin, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("etcdctl");
    cmd.add("--endpoints=" + endpoint);
    cmd.add("--command-timeout=10s");
    cmd.addAll(args);
    try {
      Path out = Files.createTempFile("etcdctl", ".out");
      Path err = Files.createTempFile("etcdctl", ".err");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().put("ETCDCTL_API", "3");
      Process p = pb.start();
      try (OutputStream in = p.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("etcdctl " + args + " did not finish in 30 s");
      }
      Result r = new Result(Files.readString(out), Files.readString(err), p.exitValue());
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      return r;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run etcdctl (install Debian's etcd-client)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static Result run(String endpoint, String... args) {
    return run(endpoint, null, List.of(args));
  }
}
