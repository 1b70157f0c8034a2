package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.EtcdFailures;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThroughElectionsTest {
  private final AtomicLong leader = new AtomicLong();
  /** Each attempt's answer, for the test to complete; in the order they started. */
  private final List<CompletableFuture<String>> attempts = new CopyOnWriteArrayList<>();

  private CompletableFuture<String> run(Duration timeout) {
    return ThroughElections.run(() -> {
      CompletableFuture<String> attempt = new CompletableFuture<>();
      attempts.add(attempt);
      return attempt;
    }, leader::get, timeout).toCompletableFuture();
  }

  private void awaitAttempts(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (attempts.size() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("attempts: " + attempts.size() + ", expected " + n);
      }
      Thread.onSpinWait();
    }
  }

  @Test
  void aRequestThatFoundNoLeaderRunsAgainOnceOneIsKnown() throws Exception {
    CompletableFuture<String> answer = run(Duration.ofSeconds(30));
    attempts.get(0).completeExceptionally(EtcdError.NO_LEADER.exception());
    leader.set(7);
    awaitAttempts(2);
    attempts.get(1).complete("token");
    assertEquals("token", answer.get(10, TimeUnit.SECONDS));
    assertEquals(2, attempts.size());
  }

  @Test
  void aNewLeaderWhileTheRequestWaitsStartsAnotherAttemptAndTheFirstAnswerCounts() throws Exception {
    leader.set(7);
    CompletableFuture<String> answer = run(Duration.ofSeconds(30));
    leader.set(9); // its entry may be lost with leader 7: etcd would time out
    awaitAttempts(2);
    attempts.get(1).complete("second");
    attempts.get(0).complete("first, too late");
    assertEquals("second", answer.get(10, TimeUnit.SECONDS));
    assertEquals(2, attempts.size(), "one attempt per leader");
  }

  @Test
  void withoutALeaderWithinTheTimeoutTheLastFailureStands() {
    CompletableFuture<String> answer = run(Duration.ofMillis(300));
    attempts.get(0).completeExceptionally(EtcdError.NO_LEADER.exception());
    ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(10, TimeUnit.SECONDS));
    assertEquals(EtcdError.NO_LEADER, ((EtcdException) EtcdFailures.cause(e)).error());
    assertEquals(1, attempts.size(), "never run again without a leader");
  }

  @Test
  void theRequestsOwnFailuresAreNotRetried() {
    leader.set(7);
    CompletableFuture<String> answer = run(Duration.ofSeconds(30));
    EtcdException refused = EtcdError.AUTH_FAILED.exception();
    attempts.get(0).completeExceptionally(refused);
    ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(10, TimeUnit.SECONDS));
    assertSame(refused, EtcdFailures.cause(e));
    assertEquals(1, attempts.size());
  }
}
