package io.akkaetcd.wait;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ResponseBatchTest {
  /** An executor that keeps its tasks until the test runs them. */
  private static final class Held implements Executor {
    final List<Runnable> tasks = new ArrayList<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }
  }

  @Test
  void completionsInsideABatchWaitForOneTaskThatCompletesThemInOrder() {
    Held connections = new Held();
    CompletableFuture<String> first = new CompletableFuture<>();
    CompletableFuture<String> second = new CompletableFuture<>();
    List<String> order = new ArrayList<>();
    first.thenAccept(order::add);
    second.thenAccept(order::add);

    ResponseBatch.deliverTogether(() -> {
      ResponseBatch.complete(first, "a");
      ResponseBatch.complete(second, "b");
      assertFalse(first.isDone(), "held back while the batch runs");
    }, connections);

    assertFalse(first.isDone() || second.isDone(), "held until the connections' executor runs the task");
    assertEquals(1, connections.tasks.size(), "one task for the whole batch");
    connections.tasks.get(0).run();
    assertEquals(List.of("a", "b"), order);
  }

  @Test
  void aBatchOfOneCompletesInPlace() {
    Held connections = new Held();
    CompletableFuture<String> only = new CompletableFuture<>();
    ResponseBatch.deliverTogether(() -> {
      ResponseBatch.complete(only, "alone");
      assertFalse(only.isDone(), "held back while the batch runs");
    }, connections);
    assertEquals("alone", only.getNow(null));
    assertTrue(connections.tasks.isEmpty(), "no hand-off for one response");
  }

  @Test
  void outsideABatchACompletionIsImmediate() {
    Held connections = new Held();
    ResponseBatch.deliverTogether(() -> { }, connections);
    assertTrue(connections.tasks.isEmpty(), "an empty batch hands over nothing");

    CompletableFuture<String> f = new CompletableFuture<>();
    ResponseBatch.complete(f, "now");
    assertEquals("now", f.getNow(null));
  }

  @Test
  void aFailingBatchStillDeliversWhatItCompletedAndARejectingExecutorIsAnsweredInPlace() {
    CompletableFuture<String> f = new CompletableFuture<>();
    CompletableFuture<String> g = new CompletableFuture<>();
    Executor stopped = task -> {
      throw new RejectedExecutionException("stopping");
    };
    assertThrows(IllegalStateException.class, () -> ResponseBatch.deliverTogether(() -> {
      ResponseBatch.complete(f, "done");
      ResponseBatch.complete(g, "too");
      throw new IllegalStateException("apply failed");
    }, stopped));
    assertEquals("done", f.getNow(null));
    assertEquals("too", g.getNow(null));
  }

  @Test
  void batchesDoNotNest() {
    Held connections = new Held();
    assertThrows(IllegalStateException.class,
        () -> ResponseBatch.deliverTogether(() -> ResponseBatch.deliverTogether(() -> { }, connections), connections));
    CompletableFuture<String> f = new CompletableFuture<>();
    ResponseBatch.complete(f, "after");
    assertTrue(f.isDone(), "the outer batch is closed after the failure");
  }
}
