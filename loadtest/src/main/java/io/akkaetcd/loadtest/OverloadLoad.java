package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts from many closed-loop clients (issue #33, item 3; etcd #21513) where a put the server
 * refuses with etcd's "too many requests" (RESOURCE_EXHAUSTED) is sent again after a backoff that
 * doubles from --retry-backoff-ms up to --retry-backoff-max-ms, ± --retry-jitter of it (0.1: etcd
 * clientv3's 10 %). Admitted puts are the report's operations, their latency that of the attempt
 * the server admitted; refusals are counted apart ({@code refused}), every other failure is an
 * error.
 */
final class OverloadLoad {
  static final String TOO_MANY_REQUESTS = "etcdserver: too many requests";

  private final List<ManagedChannel> channels;
  private final long total;
  private final long backoffMs;
  private final long backoffMaxMs;
  private final double jitter;
  private final ByteString value;
  private final int keySize;
  private final int keySpace;
  private final Report report;
  private final AtomicLong next = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final CountDownLatch finished;
  private final ScheduledExecutorService timer = Timers.daemon("loadtest-backoff");

  private OverloadLoad(Options o, List<ManagedChannel> channels, int clients, long total) {
    this.channels = channels;
    this.total = total;
    this.backoffMs = o.longValue("retry-backoff-ms", 25);
    this.backoffMaxMs = o.longValue("retry-backoff-max-ms", 1000);
    this.jitter = o.decimal("retry-jitter", 0.1);
    this.keySize = o.integer("key-size", 8);
    this.keySpace = o.integer("key-space-size", 1);
    this.value = KvLoad.randomBytes(o.integer("val-size", 8));
    this.report = new Report("put-overload", (int) Math.min(total, Integer.MAX_VALUE - 8));
    this.finished = new CountDownLatch(clients);
  }

  static Report put(Options o, List<ManagedChannel> channels, int clients, long total) throws InterruptedException {
    OverloadLoad load = new OverloadLoad(o, channels, clients, total);
    load.report.start();
    for (int c = 0; c < clients; c++) load.issueNext(c);
    load.finished.await();
    load.report.end();
    load.timer.shutdownNow();
    load.report.extra.put("refused", load.refused.get());
    return load.report;
  }

  private void issueNext(int client) {
    if (next.getAndIncrement() >= total) {
      finished.countDown();
      return;
    }
    PutRequest req = PutRequest.newBuilder()
        .setKey(KvLoad.key(ThreadLocalRandom.current().nextInt(keySpace), keySize)).setValue(value).build();
    send(client, req, 0);
  }

  private void send(int client, PutRequest req, int refusals) {
    long t0 = System.nanoTime();
    Rpc.call(channels.get(client % channels.size()), Rpc.PUT, req, (r, status) -> {
      if (status.isOk()) {
        report.ok(System.nanoTime() - t0);
        issueNext(client);
      } else if (isRefusal(status)) {
        refused.incrementAndGet();
        timer.schedule(() -> send(client, req, refusals + 1), backoffMicros(refusals), TimeUnit.MICROSECONDS);
      } else {
        report.error(status);
        // a failure may complete on the caller's stack: continue on the timer, not recursively
        timer.execute(() -> issueNext(client));
      }
    });
  }

  private long backoffMicros(int refusals) {
    long ms = Math.min(backoffMaxMs, backoffMs << Math.min(refusals, 20));
    return (long) (ms * 1000 * (1 + jitter * ThreadLocalRandom.current().nextDouble(-1, 1)));
  }

  static boolean isRefusal(Status status) {
    return status.getCode() == Status.Code.RESOURCE_EXHAUSTED && TOO_MANY_REQUESTS.equals(status.getDescription());
  }
}
