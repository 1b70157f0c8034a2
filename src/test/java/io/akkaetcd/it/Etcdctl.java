package io.akkaetcd.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs Debian's etcdctl (API v3) against one endpoint. */
public final class Etcdctl {
  public static final String BINARY = "/usr/bin/etcdctl";

  /** The outcome of one etcdctl run. */
  public record Result(int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }

    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
    }
  }

  private final String endpoint;
  private final Duration timeout;

  public Etcdctl(String endpoint) {
    this(endpoint, Duration.ofSeconds(30));
  }

  public Etcdctl(String endpoint, Duration timeout) {
    this.endpoint = endpoint;
    this.timeout = timeout;
  }

  public Result run(String... args) {
    return run(List.of(args), null);
  }

  /** Runs {@code etcdctl --endpoints=<endpoint> args...}, feeding {@code stdin} if not null. */
  public Result run(List<String> args, String stdin) {
    List<String> cmd = new ArrayList<>();
    cmd.add(BINARY);
    cmd.add("--endpoints=" + endpoint);
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("ETCDCTL_API", "3");
    pb.environment().keySet().removeIf(k -> k.startsWith("ETCDCTL_") && !k.equals("ETCDCTL_API"));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try (OutputStream in = p.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException ignored) {
      // etcdctl may exit before reading its input
    }
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError("etcdctl " + args + " did not finish within " + timeout
            + "\nstdout so far: " + out.getNow("") + "\nstderr so far: " + err.getNow(""));
      }
      return new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (Exception e) {
      p.destroyForcibly();
      throw new AssertionError("etcdctl " + args + " failed", e);
    }
  }

  private static CompletableFuture<String> drain(InputStream s) {
    return CompletableFuture.supplyAsync(() -> {
      try (s) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        s.transferTo(b);
        return b.toString(StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "<read failed: " + e + ">";
      }
    }, r -> {
      Thread t = new Thread(r, "etcdctl-drain");
      t.setDaemon(true);
      t.start();
    });
  }
}
