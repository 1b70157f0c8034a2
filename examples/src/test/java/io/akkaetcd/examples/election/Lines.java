package io.akkaetcd.examples.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** Every node's standard output lines ({@link Report}), in the order they arrived; a test awaits conditions on them. */
final class Lines {
  /** {@code text} said by {@code node}, {@code millis} after these lines began. */
  record Line(String node, String text, long millis) {
    String[] words() {
      return text.split(" ");
    }
  }

  private final List<Line> all = new ArrayList<>();
  private final long start = System.nanoTime();

  synchronized void add(String node, String text) {
    all.add(new Line(node, text, (System.nanoTime() - start) / 1_000_000));
    notifyAll();
  }

  synchronized List<Line> all() {
    return List.copyOf(all);
  }

  /**
   * The first present result of {@code condition} on the lines so far, re-evaluated as lines
   * arrive; fails at once if a node exited on its own.
   */
  <T> T await(String what, Duration within, Function<List<Line>, Optional<T>> condition) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (this) {
      while (true) {
        if (all.stream().anyMatch(l -> l.text().startsWith("EXITED "))) {
          throw new AssertionError("a node exited while awaiting " + what + ":\n" + this);
        }
        Optional<T> result = condition.apply(List.copyOf(all));
        if (result.isPresent()) {
          return result.get();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("no " + what + " within " + within + "; the nodes said:\n" + this);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  @Override
  public synchronized String toString() {
    StringBuilder b = new StringBuilder();
    all.forEach(l -> b.append(String.format("%8.3f ", l.millis() / 1000.0)).append(l.node()).append(": ").append(l.text()).append('\n'));
    return b.toString();
  }
}
