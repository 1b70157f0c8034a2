package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The secured chaos run's lost events, replayed on one member: a jetcd watch (user and password,
 * simple tokens) sees some events, the member restarts (kill -9), so the watch's token is one it
 * no longer holds, and more is written. jetcd re-creates the watch, is refused (created+canceled,
 * "invalid auth token"), refreshes its token and re-creates it from the revision after the last
 * event it saw. Meanwhile the client asks for progress all the time, as the chaos checker does:
 * jetcd 0.7.7 takes any progress answer as its resume revision, so an answer on the refused
 * stream (which holds no watch) would make it skip the events written since the restart.
 */
class WatchTokenResumeTest {
  private static final int BEFORE = 5;
  private static final int AFTER = 200;

  @Test
  void aWatchResumedWithATokenTheRestartedMemberLostGetsEveryEvent() throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of())) {
      AuthSetup.enable(server.endpoint());
      Recorder seen = new Recorder();
      List<Long> written = new ArrayList<>();
      try (Client watching = alice(server); Watch.Watcher watcher = watching.getWatchClient().watch(bytes("a/"),
          WatchOption.builder().isPrefix(true).withRevision(1).build(), Watch.listener(seen::record, e -> { }))) {
        try (Client writer = alice(server)) {
          for (int i = 0; i < BEFORE; i++) {
            written.add(put(writer, i));
          }
        }
        seen.await(written);

        server.kill();
        server.start("--user", "root:pw");
        AtomicBoolean asking = new AtomicBoolean(true);
        Thread asker = new Thread(() -> {
          while (asking.get()) {
            try {
              watcher.requestProgress();
            } catch (RuntimeException streamEndedMeanwhile) {
              // jetcd ends a refused stream while we write to it; the next stream takes the next request
            }
            LockSupport.parkNanos(200_000);
          }
        }, "progress-asker");
        asker.start();
        try (Client writer = alice(server)) {
          for (int i = BEFORE; i < BEFORE + AFTER; i++) {
            written.add(put(writer, i));
          }
          seen.await(written);
        } finally {
          asking.set(false);
          asker.join();
        }
      }
      assertEquals(written, seen.events(), "every event once, in order");
      assertTrue(seen.badProgress().isEmpty(), "progress past undelivered events: " + seen.badProgress());
    }
  }

  /** What the watch received: its events' revisions, and each progress answer ahead of them. */
  private static final class Recorder {
    private final List<Long> events = new ArrayList<>();
    private final List<String> badProgress = new ArrayList<>();

    synchronized void record(WatchResponse r) {
      for (WatchEvent e : r.getEvents()) {
        events.add(e.getKeyValue().getModRevision());
      }
      long delivered = events.isEmpty() ? 0 : events.get(events.size() - 1);
      if (r.getEvents().isEmpty() && r.getHeader().getRevision() > delivered) {
        badProgress.add("progress at " + r.getHeader().getRevision() + " with events up to " + delivered);
      }
      notifyAll();
    }

    /** Waits (30 s at most) until the last revision written arrived, or something after it. */
    synchronized void await(List<Long> written) throws InterruptedException {
      long last = written.get(written.size() - 1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (events.isEmpty() || events.get(events.size() - 1) < last) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("the watch saw " + events + " of " + written + "; progress: " + badProgress);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    synchronized List<Long> events() {
      return List.copyOf(events);
    }

    synchronized List<String> badProgress() {
      return List.copyOf(badProgress);
    }
  }

  private static Client alice(ServerProcess server) {
    return Client.builder().endpoints(server.clientUrl()).user(bytes("alice")).password(bytes("apw")).build();
  }

  private static long put(Client c, int i) throws Exception {
    return c.getKVClient().put(bytes("a/" + i), bytes("v" + i)).get(30, TimeUnit.SECONDS).getHeader().getRevision();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
