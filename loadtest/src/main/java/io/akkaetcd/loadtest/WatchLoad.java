package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.*;
import io.akkaetcd.proto.mvccpb.Event;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The watch workloads. Every put carries its sequence number in its value, so each delivered event
 * is matched to the moment its put was sent (delivery latency) and every watcher is checked for
 * exactly-once, in-order delivery: revisions strictly increasing and one event per put to its key.
 */
final class WatchLoad {
  private WatchLoad() {}

  /** One watch on one stream and what it has received. */
  private static final class Watcher {
    final int keyNumber;
    long lastRevision;
    long received;
    long reordered;

    Watcher(int keyNumber) {
      this.keyNumber = keyNumber;
    }
  }

  /** Streams with watchers open on them; closing cancels every stream. */
  static final class Watches implements AutoCloseable {
    final List<Rpc.Stream<WatchRequest, WatchResponse>> streams = new ArrayList<>();
    final Report created;
    private final ConcurrentHashMap<Long, Watcher>[] byId;
    private final CountDownLatch allCreated;
    private final long[] sentAt;
    private final Report delivered;
    /** Responses with no events that are neither created nor canceled: progress notifications. */
    final java.util.concurrent.atomic.LongAdder progress = new java.util.concurrent.atomic.LongAdder();

    @SuppressWarnings("unchecked")
    Watches(List<ManagedChannel> ch, int streamCount, int perStream, String prefix, int keySpace, long[] sentAt, Report delivered)
        throws InterruptedException {
      this.sentAt = sentAt;
      this.delivered = delivered;
      this.byId = new ConcurrentHashMap[streamCount];
      this.allCreated = new CountDownLatch(streamCount * perStream);
      this.created = new Report("watch-create", streamCount * perStream);
      created.start();
      for (int s = 0; s < streamCount; s++) {
        int stream = s;
        byId[s] = new ConcurrentHashMap<>();
        // a stream's create responses come back in the order of its create requests
        long[] createStart = new long[perStream];
        int[] nextCreated = {0};
        Rpc.Stream<WatchRequest, WatchResponse> st = new Rpc.Stream<>(ch.get(s % ch.size()), Rpc.WATCH, resp -> {
          if (resp.getCreated()) {
            int i = nextCreated[0]++;
            byId[stream].put(resp.getWatchId(), new Watcher((stream * perStream + i) % keySpace));
            created.ok(System.nanoTime() - createStart[i]);
            allCreated.countDown();
          } else if (resp.getCanceled()) {
            created.error("canceled: " + resp.getCancelReason());
          } else if (resp.getEventsCount() > 0) {
            onEvents(byId[stream].get(resp.getWatchId()), resp);
          } else {
            progress.increment();
          }
        });
        streams.add(st);
        for (int i = 0; i < perStream; i++) {
          int keyNumber = (s * perStream + i) % keySpace;
          createStart[i] = System.nanoTime();
          st.send(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder()
              .setKey(ByteString.copyFromUtf8(prefix + keyNumber))).build());
        }
      }
      if (!allCreated.await(10, TimeUnit.MINUTES)) throw new IllegalStateException("watches not created in time");
      created.end();
    }

    private void onEvents(Watcher w, WatchResponse resp) {
      long now = System.nanoTime();
      synchronized (w) {
        for (Event e : resp.getEventsList()) {
          long rev = e.getKv().getModRevision();
          if (rev <= w.lastRevision) w.reordered++;
          w.lastRevision = rev;
          w.received++;
          if (sentAt != null && e.getKv().getValue().size() >= 8) {
            long seq = e.getKv().getValue().asReadOnlyByteBuffer().getLong();
            delivered.ok(now - sentAt[(int) seq]);
          }
        }
      }
    }

    long received() {
      long n = 0;
      for (var m : byId) for (Watcher w : m.values()) synchronized (w) { n += w.received; }
      return n;
    }

    /** Watchers whose delivery was not exactly the expected events in revision order. */
    long faulty(long[] putsPerKey) {
      long bad = 0;
      for (var m : byId) {
        for (Watcher w : m.values()) {
          synchronized (w) {
            if (w.reordered > 0 || w.received != putsPerKey[w.keyNumber]) bad++;
          }
        }
      }
      return bad;
    }

    @Override
    public void close() {
      for (var s : streams) s.cancel();
    }
  }

  /**
   * watch and watch-latency: open streams × watchers-per-stream watchers (watcher i on key
   * i mod key-space), put put-total values to key seq mod key-space at put-rate (0 = as fast as
   * put-clients can), and report creation latency and delivery latency of every event.
   */
  static List<Report> watch(Options o, List<ManagedChannel> ch, String name, int defaultKeySpace, double defaultRate)
      throws InterruptedException {
    return watch(o, ch, name, defaultKeySpace, defaultRate, (watches, prefix, delivered) -> () -> { });
  }

  /** What a workload adds around watch's puts: opened once the watchers exist, closed after delivery. */
  interface Alongside {
    AutoCloseable open(Watches watches, String prefix, Report delivered) throws InterruptedException;
  }

  private static List<Report> watch(Options o, List<ManagedChannel> ch, String name, int defaultKeySpace, double defaultRate,
      Alongside alongside) throws InterruptedException {
    int streamCount = o.integer("streams", 10);
    int perStream = o.integer("watchers-per-stream", 100);
    int putTotal = o.integer("put-total", 1000);
    double putRate = o.decimal("put-rate", defaultRate);
    int putClients = o.integer("put-clients", 1);
    int keySpace = o.integer("key-space-size", defaultKeySpace);
    int valSize = Math.max(8, o.integer("val-size", 8));
    String prefix = "bench-" + name + "-" + System.nanoTime() + "/";

    long[] sentAt = new long[putTotal];
    long[] putsPerKey = new long[keySpace];
    for (int i = 0; i < putTotal; i++) putsPerKey[i % keySpace]++;
    Report delivered = new Report(name, (int) Math.min((long) putTotal * streamCount * perStream, 50_000_000));
    long expected = 0;
    for (int w = 0; w < streamCount * perStream; w++) expected += putsPerKey[w % keySpace];

    try (Watches watches = new Watches(ch, streamCount, perStream, prefix, keySpace, sentAt, delivered);
         AutoCloseable along = alongside.open(watches, prefix, delivered)) {
      delivered.start();
      byte[] pad = new byte[valSize - 8];
      Report puts = ClosedLoop.run(name + "-puts", ch, putClients, putTotal, putRate, (c, client, seq, done) -> {
        ByteString value = ByteString.copyFrom(ByteBuffer.allocate(valSize).putLong(seq).put(pad).array());
        sentAt[(int) seq] = System.nanoTime();
        Rpc.call(c, Rpc.PUT, PutRequest.newBuilder().setKey(ByteString.copyFromUtf8(prefix + (seq % keySpace)))
            .setValue(value).build(), (r, s) -> done.accept(s));
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (watches.received() < expected && System.nanoTime() < deadline) Thread.sleep(10); // polls a counter, bounded by the deadline
      delivered.end();
      delivered.extra.put("watchers", streamCount * perStream);
      delivered.extra.put("puts", puts.okCount());
      delivered.extra.put("expected_events", expected);
      delivered.extra.put("received_events", watches.received());
      delivered.extra.put("faulty_watchers", watches.faulty(putsPerKey));
      if (puts.errorCount() > 0) delivered.error(puts.errorCount() + " puts failed");
      return List.of(watches.created, delivered);
    } catch (InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * slow-watcher (#33 item 4): watch-latency's watchers (--key-space-size 100 by default, one key
   * per watcher), each stream asking for progress (WatchProgressRequest) every 200 ms, beside
   * --slow-watchers streams (default 1) that each watch every key with prev_kv and never read past
   * their created answer, so HTTP/2 flow control fills and the server must hold or drop what
   * follows. --slow-conn own (a connection of their own) or shared (the first connection of the
   * watchers measured). Reports the others' put-to-event latency and the progress answers they got.
   */
  static List<Report> slowWatcher(Options o, List<ManagedChannel> ch, Supplier<ManagedChannel> dial) throws InterruptedException {
    int slow = o.integer("slow-watchers", 1);
    boolean shared = o.string("slow-conn", "own").equals("shared");
    return watch(o, ch, "slow-watcher", 100, 200, (watches, prefix, delivered) -> {
      ManagedChannel own = slow > 0 && !shared ? dial.get() : null;
      List<StalledWatch> stalled = new ArrayList<>();
      for (int i = 0; i < slow; i++) stalled.add(new StalledWatch(own != null ? own : ch.get(0), prefix));
      AtomicLong stop = new AtomicLong();
      Thread asker = new Thread(() -> {
        WatchRequest ask = WatchRequest.newBuilder().setProgressRequest(WatchProgressRequest.getDefaultInstance()).build();
        while (stop.get() == 0) {
          for (var st : watches.streams) st.send(ask);
          try {
            TimeUnit.MILLISECONDS.sleep(200); // the request pace, not a wait for a condition
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "slow-watcher-progress");
      asker.setDaemon(true);
      long progress0 = watches.progress.sum();
      asker.start();
      return () -> {
        stop.set(1);
        asker.interrupt();
        asker.join(5000);
        delivered.extra.put("progress_answers", watches.progress.sum() - progress0);
        delivered.extra.put("progress_requests_per_stream_per_s", 5);
        delivered.extra.put("slow_watchers", slow);
        delivered.extra.put("slow_conn", shared ? "shared" : "own");
        long slowReceived = 0;
        for (StalledWatch w : stalled) {
          slowReceived += w.received.get();
          w.cancel();
        }
        delivered.extra.put("slow_watcher_responses_read", slowReceived);
        if (own != null) Rpc.shutdown(List.of(own));
      };
    });
  }

  /** A watch stream whose reader takes its created answer and then never reads again. */
  private static final class StalledWatch {
    final AtomicLong received = new AtomicLong();
    private final ClientCall<WatchRequest, WatchResponse> call;

    StalledWatch(ManagedChannel ch, String prefix) throws InterruptedException {
      CountDownLatch created = new CountDownLatch(1);
      call = ch.newCall(Rpc.WATCH, CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onMessage(WatchResponse message) {
          received.incrementAndGet();
          created.countDown();
        }
      }, new Metadata());
      call.request(1); // and never again: flow control then stops the server's sends
      ByteString key = ByteString.copyFromUtf8(prefix);
      call.sendMessage(WatchRequest.newBuilder().setCreateRequest(WatchCreateRequest.newBuilder().setKey(key)
          .setRangeEnd(prefixEnd(key)).setPrevKv(true)).build());
      if (!created.await(1, TimeUnit.MINUTES)) throw new IllegalStateException("slow watch not created in time");
    }

    synchronized void cancel() {
      call.cancel("benchmark done", null);
    }
  }

  private static ByteString prefixEnd(ByteString prefix) {
    byte[] end = prefix.toByteArray();
    end[end.length - 1]++;
    return ByteString.copyFrom(end);
  }

  /** Opens watchers that stay idle until closed: the memory benchmark's 100,000 watches. */
  static Watches idle(List<ManagedChannel> ch, int streamCount, int perStream) throws InterruptedException {
    return new Watches(ch, streamCount, perStream, "bench-idle-" + System.nanoTime() + "/", streamCount * perStream, null, null);
  }

  /** watch-get: serializable gets of one key while watchers watch it and a writer changes it. */
  static List<Report> watchGet(Options o, List<ManagedChannel> ch, int clients, long total) throws InterruptedException {
    int streamCount = o.integer("streams", 1);
    int perStream = o.integer("watchers-per-stream", 10000);
    double putRate = o.decimal("put-rate", 100);
    String prefix = "bench-watch-get-" + System.nanoTime() + "/";
    try (Watches watches = new Watches(ch, streamCount, perStream, prefix, 1, null, null)) {
      AtomicLong stop = new AtomicLong();
      // the writer: one put at a time, paced to put-rate, until the gets are done
      Thread writer = new Thread(() -> {
        long pause = putRate > 0 ? (long) (1e9 / putRate) : 0;
        for (long seq = 0; stop.get() == 0; seq++) {
          try {
            Rpc.call(ch.get(0), Rpc.PUT, PutRequest.newBuilder().setKey(ByteString.copyFromUtf8(prefix + 0))
                .setValue(ByteString.copyFromUtf8("v" + seq)).build()).get();
            if (pause > 0) TimeUnit.NANOSECONDS.sleep(pause);
          } catch (InterruptedException e) {
            return;
          } catch (java.util.concurrent.ExecutionException e) {
            // a failed put only thins the write load; the gets are what is measured
          }
        }
      }, "watch-get-writer");
      writer.setDaemon(true);
      writer.start();
      RangeRequest get = RangeRequest.newBuilder().setKey(ByteString.copyFromUtf8(prefix + 0)).setSerializable(true).build();
      Report gets = ClosedLoop.run("watch-get", ch, clients, total, 0,
          (c, client, seq, done) -> Rpc.call(c, Rpc.RANGE, get, (r, s) -> done.accept(s)));
      stop.set(1);
      writer.interrupt();
      writer.join(5000);
      return List.of(watches.created, gets);
    }
  }
}
