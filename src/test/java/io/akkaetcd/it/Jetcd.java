package io.akkaetcd.it;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers for tests through jetcd. */
final class Jetcd {
  static final Duration TIMEOUT = Duration.ofSeconds(20);

  private Jetcd() {}

  static Client client(TestServer server) {
    return Client.builder().endpoints(server.clientUrl()).build();
  }

  static ByteSequence bs(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static String str(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }

  static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (ExecutionException e) {
      throw new AssertionError("request failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + TIMEOUT, e);
    }
  }

  /** The gRPC status a failed request ended with. */
  static Status failure(CompletableFuture<?> f) {
    try {
      Object ok = f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("expected a failure, got " + ok);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + TIMEOUT, e);
    } catch (ExecutionException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof StatusRuntimeException s) {
          return s.getStatus();
        }
        if (t instanceof io.grpc.StatusException s) {
          return s.getStatus();
        }
      }
      throw new AssertionError("failure without a gRPC status", e);
    }
  }
}
