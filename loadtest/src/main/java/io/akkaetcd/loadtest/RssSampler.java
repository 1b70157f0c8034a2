package io.akkaetcd.loadtest;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** The server's peak resident set (and its private part) while it is open, read from /proc every 50 ms. */
final class RssSampler implements AutoCloseable {
  private final AtomicLong peak = new AtomicLong();
  private final AtomicLong peakAnon = new AtomicLong();
  private final ScheduledExecutorService timer = Timers.daemon("loadtest-rss");

  RssSampler(ServerUnderTest server) {
    timer.scheduleAtFixedRate(() -> {
      peak.accumulateAndGet(server.rssBytes(), Math::max);
      peakAnon.accumulateAndGet(server.rssAnonBytes(), Math::max);
    }, 0, 50, TimeUnit.MILLISECONDS);
  }

  long peakBytes() {
    return peak.get();
  }

  long peakAnonBytes() {
    return peakAnon.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
