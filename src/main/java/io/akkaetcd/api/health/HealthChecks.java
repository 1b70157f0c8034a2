package io.akkaetcd.api.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's health endpoints on the client URL. {@code /health} is etcd 3.4.23's (the version this
 * server reports): false on any alarm not named by {@code ?exclude=}, on no leader, or when a
 * quorum read fails within one second; its body is {@code {"health":"true"}} with no reason.
 * {@code /livez} and {@code /readyz} (with a path per check) are etcd 3.5.11's, which 3.4.23 does
 * not serve: "ok\n", {@code ?verbose} lists "[+]check ok" lines first, a failure answers 503 with
 * every "[-]check failed: error" line; {@code ?exclude=check} skips a check. etcd runs its checks
 * in Go map order; here they run in the order etcd registers them. Every endpoint takes GET only.
 */
public final class HealthChecks {
  private static final Logger LOG = LoggerFactory.getLogger(HealthChecks.class);
  /** etcd 3.4's QGET deadline in checkHealth. */
  static final long QUORUM_READ_TIMEOUT_MS = 1000;

  private final HealthProbe probe;
  /** By root path (/livez, /readyz): the checks in etcd's registration order. */
  private final Map<String, Map<String, Supplier<CompletionStage<Void>>>> registries = new LinkedHashMap<>();

  public HealthChecks(HealthProbe probe) {
    this.probe = probe;
    Map<String, Supplier<CompletionStage<Void>>> livez = new LinkedHashMap<>();
    livez.put("serializable_read", probe::serializableRead);
    Map<String, Supplier<CompletionStage<Void>>> readyz = new LinkedHashMap<>();
    readyz.put("data_corruption", this::noCorruptAlarm);
    readyz.put("serializable_read", probe::serializableRead);
    readyz.put("linearizable_read", probe::linearizableRead);
    registries.put("/livez", livez);
    registries.put("/readyz", readyz);
  }

  /** Whether {@code path} is one of the health endpoints. */
  public boolean serves(String path) {
    return path.equals("/health") || registryOf(path) != null;
  }

  /** The answer to {@code method path?query}, for a path {@link #serves} takes. */
  public CompletionStage<HealthAnswer> answer(String method, String path, Map<String, List<String>> query) {
    if (!method.equals("GET")) {
      LOG.warn("/health error (status code 405) path={}", path);
      return CompletableFuture.completedFuture(HealthAnswer.methodNotAllowed());
    }
    if (path.equals("/health")) {
      return health(Set.copyOf(query.getOrDefault("exclude", List.of())));
    }
    String root = registryOf(path);
    Map<String, Supplier<CompletionStage<Void>>> checks = registries.get(root);
    List<String> names;
    if (path.equals(root)) {
      List<String> excluded = query.getOrDefault("exclude", List.of());
      names = checks.keySet().stream().filter(n -> !excluded.contains(n)).toList();
      List<String> missing = excluded.stream().filter(e -> !e.isEmpty() && !checks.containsKey(e)).toList();
      if (!missing.isEmpty()) {
        LOG.warn("some health checks cannot be excluded: {}", missing);
      }
    } else {
      names = List.of(path.substring(root.length() + 1));
    }
    return run(checks, names).thenApply(outcome -> {
      if (outcome.failed) {
        LOG.error("Health check error path={} reason={}", path, outcome.reason.strip());
        return HealthAnswer.error(503, outcome.reason);
      }
      String body = (query.containsKey("verbose") ? outcome.reason : "") + "ok\n";
      return new HealthAnswer(200, body, Map.of("X-Content-Type-Options", "nosniff"));
    });
  }

  /** etcd 3.4.23's checkHealth: alarms, then the leader, then a quorum read within 1 s. */
  private CompletionStage<HealthAnswer> health(Set<String> excludedAlarms) {
    List<String> raised = probe.alarms().stream().filter(a -> !excludedAlarms.contains(a)).toList();
    if (!raised.isEmpty()) {
      LOG.warn("/health error due to alarm {}", raised.get(0));
      return CompletableFuture.completedFuture(unhealthy());
    }
    if (!probe.hasLeader()) {
      LOG.warn("/health error; no leader (status code 503)");
      return CompletableFuture.completedFuture(unhealthy());
    }
    return probe.linearizableRead().toCompletableFuture()
        .orTimeout(QUORUM_READ_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .handle((ok, error) -> {
          if (error != null) {
            LOG.warn("/health error; QGET failed {} (status code 503)", message(error));
            return unhealthy();
          }
          return HealthAnswer.ok("{\"health\":\"true\"}");
        });
  }

  private static HealthAnswer unhealthy() {
    return HealthAnswer.error(503, "{\"health\":\"false\"}");
  }

  private CompletionStage<Void> noCorruptAlarm() {
    return probe.alarms().contains("CORRUPT")
        ? CompletableFuture.failedFuture(new IllegalStateException("alarm activated: CORRUPT"))
        : CompletableFuture.completedFuture(null);
  }

  private record Outcome(boolean failed, String reason) {}

  /** Runs the named checks together; the reason lists them in the order named. */
  private static CompletionStage<Outcome> run(Map<String, Supplier<CompletionStage<Void>>> checks, List<String> names) {
    List<CompletableFuture<String>> lines = new ArrayList<>();
    for (String name : names) {
      CompletableFuture<Void> check;
      try {
        check = checks.get(name).get().toCompletableFuture();
      } catch (RuntimeException e) {
        check = CompletableFuture.failedFuture(e);
      }
      lines.add(check.handle((ok, error) -> error == null
          ? "[+]" + name + " ok\n"
          : "[-]" + name + " failed: " + message(error) + "\n"));
    }
    return CompletableFuture.allOf(lines.toArray(CompletableFuture[]::new)).thenApply(done -> {
      StringBuilder reason = new StringBuilder();
      boolean failed = false;
      for (CompletableFuture<String> line : lines) {
        String l = line.join();
        failed |= l.startsWith("[-]");
        reason.append(l);
      }
      return new Outcome(failed, reason.toString());
    });
  }

  private String registryOf(String path) {
    for (var e : registries.entrySet()) {
      String root = e.getKey();
      if (path.equals(root)
          || path.startsWith(root + "/") && e.getValue().containsKey(path.substring(root.length() + 1))) {
        return root;
      }
    }
    return null;
  }

  /** The error's text as Go's %v prints it; a deadline is context's. */
  private static String message(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof TimeoutException) {
      return "context deadline exceeded";
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }
}
