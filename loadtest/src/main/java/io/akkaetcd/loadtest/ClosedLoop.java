package io.akkaetcd.loadtest;

import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code clients} concurrent closed-loop clients sharing {@code total} operations, as etcd's
 * benchmark runs them: each client has one request outstanding and sends the next when it completes;
 * client i uses connection i mod conns. With a rate, operation n is not sent before start + n/rate.
 * A connection is a gRPC channel, or the in-process client of a member in this JVM.
 */
final class ClosedLoop<C> {
  /** One operation: calls {@code done} with Status.OK or the failure, exactly once. */
  interface Op<C> {
    void issue(C channel, int client, long seq, Consumer<Status> done);
  }

  private final List<C> channels;
  private final int clients;
  private final long total;
  private final double rate;
  private final Op<C> op;
  private final Report report;
  private final AtomicLong next = new AtomicLong();
  private final CountDownLatch finished;
  private final ScheduledExecutorService timer = Timers.daemon("loadtest-pacer");
  private long startNanos;

  private ClosedLoop(String name, List<C> channels, int clients, long total, double rate, Op<C> op) {
    this.channels = channels;
    this.clients = clients;
    this.total = total;
    this.rate = rate;
    this.op = op;
    this.report = new Report(name, (int) Math.min(total, Integer.MAX_VALUE - 8));
    this.finished = new CountDownLatch(clients);
  }

  static <C> Report run(String name, List<C> channels, int clients, long total, double rate, Op<C> op)
      throws InterruptedException {
    ClosedLoop<C> loop = new ClosedLoop<>(name, channels, clients, total, rate, op);
    loop.report.start();
    loop.startNanos = System.nanoTime();
    for (int c = 0; c < clients; c++) loop.issueNext(c);
    loop.finished.await();
    loop.report.end();
    loop.timer.shutdownNow();
    return loop.report;
  }

  private void issueNext(int client) {
    long seq = next.getAndIncrement();
    if (seq >= total) {
      finished.countDown();
      return;
    }
    long due = rate > 0 ? startNanos + (long) (seq * 1e9 / rate) - System.nanoTime() : 0;
    if (due > 0) timer.schedule(() -> send(client, seq), due, TimeUnit.NANOSECONDS);
    else send(client, seq);
  }

  private void send(int client, long seq) {
    long t0 = System.nanoTime();
    op.issue(channels.get(client % channels.size()), client, seq, status -> {
      if (status.isOk()) {
        report.ok(System.nanoTime() - t0);
        issueNext(client);
      } else {
        report.error(status);
        // a failure may complete on the caller's stack: continue on the timer, not recursively
        timer.execute(() -> issueNext(client));
      }
    });
  }
}
