package io.akkaetcd.it;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs Debian's etcdctl (v3 API) against one endpoint and captures stdout, stderr and the exit
 * code. The binary is {@code /usr/bin/etcdctl} unless {@code -Dit.etcdctl=...}.
 */
public final class Etcdctl {
  static final String BINARY = System.getProperty("it.etcdctl", "/usr/bin/etcdctl");
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

  /** The outcome of one invocation; {@code exitCode} is -1 when it was killed on timeout. */
  public record Result(String stdout, String stderr, int exitCode, boolean timedOut) {
    public boolean ok() {
      return exitCode == 0 && !timedOut;
    }

    @Override
    public String toString() {
      return "exit " + exitCode + (timedOut ? " (timed out)" : "")
          + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
    }
  }

  private final String endpoint;

  public Etcdctl(String endpoint) {
    this.endpoint = endpoint;
  }

  public Etcdctl(ServerUnderTest server) {
    this(server.endpoint());
  }

  public Result run(String... args) {
    return run(List.of(args), null, DEFAULT_TIMEOUT);
  }

  /** Runs {@code etcdctl --endpoints E args...}; {@code stdin} null means an empty stdin. */
  public Result run(List<String> args, String stdin, Duration timeout) {
    List<String> command = new ArrayList<>();
    command.add(BINARY);
    command.add("--endpoints=" + endpoint);
    command.addAll(args);
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("etcdctl", ".out");
      err = Files.createTempFile("etcdctl", ".err");
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectOutput(out.toFile())
          .redirectError(err.toFile());
      builder.environment().put("ETCDCTL_API", "3");
      Process process = builder.start();
      try (OutputStream in = process.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        // etcdctl may exit before reading all of stdin; its output says why.
      }
      boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!finished) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
      return new Result(text(Files.readAllBytes(out)), text(Files.readAllBytes(err)),
          finished ? process.exitValue() : -1, !finished);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  /** True when {@code endpoint health} reports the endpoint healthy. */
  public boolean healthy() {
    Result r = run(List.of("--dial-timeout=1s", "--command-timeout=2s", "endpoint", "health"),
        null, Duration.ofSeconds(5));
    return r.ok();
  }

  /** UTF-8 text; output that is not UTF-8 (say {@code -w protobuf}) shows bytes as \xNN. */
  static String text(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      StringBuilder s = new StringBuilder();
      for (byte b : bytes) {
        int c = b & 0xff;
        if (c == '\n' || (c >= 0x20 && c < 0x7f && c != '\\')) {
          s.append((char) c);
        } else {
          s.append(String.format("\\x%02x", c));
        }
      }
      return s.toString();
    }
  }

  private static void deleteQuietly(Path p) {
    if (p != null) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // a temp file left behind is harmless
      }
    }
  }
}
