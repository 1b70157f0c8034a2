package io.akkaetcd.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Small helpers for tests that talk to a server through jetcd. */
final class Jetcd {
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  private Jetcd() {}

  static Client client(ServerUnderTest server) {
    return Client.builder().endpoints(server.clientUrl()).build();
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  static String text(ByteSequence b) {
    return b.toString(StandardCharsets.UTF_8);
  }

  /** The future's value, failing the test after {@link #TIMEOUT}. */
  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("request failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Asserts the request fails with etcd's exact error text and gRPC code. */
  static void assertFails(Status.Code code, String text, CompletableFuture<?> future) {
    try {
      Object value = future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      fail("expected \"" + text + "\" but the request succeeded: " + value);
    } catch (ExecutionException e) {
      // jetcd 0.7.7 hands KV errors over as grpc's StatusRuntimeException, others wrapped
      for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
        if (cause instanceof EtcdException etcd) {
          assertEquals(text, etcd.getMessage(), "error text");
          assertEquals(code.name(), etcd.getErrorCode().name(), "gRPC code of \"" + text + "\"");
          return;
        }
        if (cause instanceof StatusRuntimeException || cause instanceof StatusException) {
          Status status = Status.fromThrowable(cause);
          assertEquals(text, status.getDescription(), "error text");
          assertEquals(code, status.getCode(), "gRPC code of \"" + text + "\"");
          return;
        }
      }
      throw new AssertionError("expected gRPC error \"" + text + "\", got " + e.getCause(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
