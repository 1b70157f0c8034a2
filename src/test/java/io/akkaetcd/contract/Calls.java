package io.akkaetcd.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waiting for a call's outcome with a deadline generous enough for a loaded machine. */
final class Calls {
  static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(20);

  private Calls() {}

  /** The stage's result; its failure thrown as it is (an {@link RpcFailure} for etcd's errors). */
  static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new AssertionError("failed with " + e.getCause(), e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("no answer within " + WAIT, e);
    }
  }

  /** Asserts that {@code stage} fails with etcd's error of gRPC code {@code code} and text {@code text}. */
  static void assertFails(String code, String text, CompletionStage<?> stage) {
    Object result;
    try {
      result = await(stage);
    } catch (RpcFailure f) {
      assertEquals(new RpcFailure(code, text), f, "code and text");
      return;
    }
    throw new AssertionError("expected " + code + ": " + text + ", got a response: " + result);
  }

  /** Waits until {@code condition} holds, polling, or fails after {@link #WAIT}. */
  static void eventually(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT + ": " + what);
      }
      LockSupport.parkNanos(POLL.toNanos()); // a poll, not a guess at how long it takes
    }
  }
}
