package io.akkaetcd.watch;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.javadsl.TimerScheduler;
import akka.stream.BoundedSourceQueue;
import akka.stream.QueueOfferResult;
import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.mvcc.KeyOrder;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * One gRPC Watch stream: its watches, each with a cursor (the next revision it has to see), fed
 * from the store's history.
 *
 * <p>On every commit (and every 100 ms, etcd's sync loop) the router first hands the watches near
 * the head their new events, then reads at most {@value #MAX_REVISIONS_PER_BATCH} revisions from
 * the lowest cursor of those further behind: all events of a revision in one response, in revision
 * order, a response at most about {@value #MAX_RESPONSE_BYTES} bytes unless one revision is more.
 * A cursor moves only when its response was accepted by the stream's output buffer (bounded in
 * responses and in {@value #MAX_BUFFERED_BYTES} bytes); a client that reads slowly just leaves its
 * cursors behind and catches up from history later, so memory stays bounded, other streams are
 * not slowed, and a catch-up does not hold back the live watches of its own stream. A watch whose
 * cursor falls below the compaction revision is canceled with compact_revision, as etcd does (a
 * cursor at it is not).
 *
 * <p>Control responses (created, canceled, requested progress) are never dropped: they wait in
 * order in {@link #control} until the buffer takes them, and no events are offered while any
 * wait, so a watch's created response always precedes its events. An interval progress
 * notification is offered only when none wait, and dropped if refused (etcd's non-blocking send).
 *
 * <p>Invariant: every event is sent at most once per watch and in revision order, since a cursor
 * only moves forward past what was accepted.
 */
public final class WatchRouter extends AbstractBehavior<WatchRouter.Command> {
  static final int MAX_REVISIONS_PER_BATCH = 1000;
  /**
   * Batches read per message: a router runs on the default dispatcher, beside the connections, so a
   * long catch-up from history yields the thread between messages instead of holding it.
   */
  static final int ROUNDS_PER_MESSAGE = 4;
  static final Duration SYNC_INTERVAL = Duration.ofMillis(100);
  /**
   * Bytes a stream's output buffer may hold before the router stops offering (one response may
   * go over): with the buffer's count bound, what a reader that stops reading costs the member.
   */
  static final long MAX_BUFFERED_BYTES = 1 << 20;
  /** A response of events holds whole revisions up to about this many bytes (at least one). */
  static final long MAX_RESPONSE_BYTES = 256 << 10;
  /** How soon a full buffer is first tried again; each further miss doubles it, up to the sync interval. */
  static final Duration FIRST_RETRY = Duration.ofMillis(1);
  private static final ByteString NUL = ByteString.copyFrom(new byte[] {0});

  public sealed interface Command {}

  /** A request from the client's stream. */
  public record Request(WatchRequest request) implements Command {}

  /**
   * A create the service refused (auth): answered created and canceled, watch id -1, in turn with
   * the stream's other answers, since clients match a created answer to their oldest pending create.
   */
  public record Refused(String reason) implements Command {}

  /** The store revision advanced. */
  public record Committed(long revision) implements Command {}

  /** The client's side of the stream ended or failed. */
  public enum StreamEnded implements Command { INSTANCE }

  private enum Sync implements Command { INSTANCE }

  private enum Retry implements Command { INSTANCE }

  private enum ProgressNotify implements Command { INSTANCE }

  /** One watch: its key range, options and cursor. Confined to the router. */
  private static final class Watch {
    final long id;
    final ByteString key;
    final ByteString end;
    final boolean noPut;
    final boolean noDelete;
    final boolean prevKv;
    final boolean progressNotify;
    final boolean fragment;
    long next;

    Watch(long id, WatchCreateRequest c, long next) {
      this.id = id;
      this.key = c.getKey().isEmpty() ? NUL : c.getKey();
      this.end = c.getRangeEnd();
      this.noPut = c.getFiltersList().contains(WatchCreateRequest.FilterType.NOPUT);
      this.noDelete = c.getFiltersList().contains(WatchCreateRequest.FilterType.NODELETE);
      this.prevKv = c.getPrevKv();
      this.progressNotify = c.getProgressNotify();
      this.fragment = c.getFragment();
      this.next = next;
    }

    boolean wants(Event e) {
      if (e.getType() == Event.EventType.PUT ? noPut : noDelete) {
        return false;
      }
      ByteString k = e.getKv().getKey();
      var cmp = KeyOrder.COMPARATOR;
      if (end.isEmpty()) {
        return k.equals(key);
      }
      if (end.equals(NUL)) {
        return cmp.compare(k, key) >= 0;
      }
      return cmp.compare(k, key) >= 0 && cmp.compare(k, end) < 0;
    }
  }

  /**
   * @param maxResponseBytes the size from which a watch that asked for fragments gets its events in
   *     fragments (etcd: --max-request-bytes plus gRPC's 512 KiB overhead)
   * @param progressInterval how often a synced watch that asked for progress notifications gets an
   *     empty response with the current revision (--experimental-watch-progress-notify-interval)
   * @param stats this stream's share of the member's watch figures; the transport reports to it
   *     the events it takes off {@code out}
   */
  public static Behavior<Command> create(KvStore store, BoundedSourceQueue<WatchResponse> out,
      LongFunction<ResponseHeader> header, int maxResponseBytes, Duration progressInterval,
      WatchStats.Stream stats, Runnable onStop) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Sync.INSTANCE, SYNC_INTERVAL);
      timers.startTimerWithFixedDelay(ProgressNotify.INSTANCE, progressInterval);
      return new WatchRouter(ctx, timers, store, out, header, maxResponseBytes, stats, onStop);
    }));
  }

  private final KvStore store;
  private final BoundedSourceQueue<WatchResponse> out;
  private final LongFunction<ResponseHeader> header;
  private final int maxResponseBytes;
  private final Runnable onStop;
  private final WatchStats.Stream stats;
  private final Map<Long, Watch> watches = new LinkedHashMap<>();
  /** Control responses the buffer did not take yet, oldest first. */
  private final ArrayDeque<WatchResponse> control = new ArrayDeque<>();
  private final TimerScheduler<Command> timers;
  private Duration retryDelay = FIRST_RETRY;
  /** The buffer refused the last offer (full, or over {@link #MAX_BUFFERED_BYTES}). */
  private boolean full;
  /** The responses the buffer held when it refused: fewer now means the reader took some. */
  private int sizeWhenFull;
  private long nextWatchId;

  private WatchRouter(ActorContext<Command> ctx, TimerScheduler<Command> timers, KvStore store,
      BoundedSourceQueue<WatchResponse> out, LongFunction<ResponseHeader> header, int maxResponseBytes,
      WatchStats.Stream stats, Runnable onStop) {
    super(ctx);
    this.stats = stats;
    this.timers = timers;
    this.maxResponseBytes = maxResponseBytes;
    this.store = store;
    this.out = out;
    this.header = header;
    this.onStop = onStop;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Request.class, this::onRequest)
        .onMessage(Refused.class, this::onRefused)
        .onMessage(Committed.class, c -> sync())
        .onMessageEquals(Sync.INSTANCE, this::sync)
        .onMessageEquals(Retry.INSTANCE, this::sync)
        .onMessageEquals(ProgressNotify.INSTANCE, this::notifyProgress)
        .onMessageEquals(StreamEnded.INSTANCE, this::stop)
        .build();
  }

  private Behavior<Command> stop() {
    try {
      out.complete();
    } catch (IllegalStateException alreadyEnded) {
      // the client's side ended the output first
    }
    stats.ended();
    onStop.run();
    return Behaviors.stopped();
  }

  private Behavior<Command> onRequest(Request r) {
    WatchRequest req = r.request();
    switch (req.getRequestUnionCase()) {
      case CREATE_REQUEST -> create(req.getCreateRequest());
      case CANCEL_REQUEST -> {
        long id = req.getCancelRequest().getWatchId();
        if (watches.remove(id) != null) {
          sendControl(response(id).setCanceled(true));
        }
      }
      case PROGRESS_REQUEST -> {
        long current = store.currentRevision();
        // etcd's progressIfSync (3.4.24+, 3.5.8+): an answer only when every watch has seen
        // everything, and none on a stream without watches (its create refused, say): jetcd
        // 0.7.7 takes any progress as its resume revision, so one there skips the watch's events.
        if (!watches.isEmpty() && watches.values().stream().allMatch(w -> w.next > current)) {
          sendControl(WatchResponse.newBuilder().setHeader(header.apply(current)).setWatchId(-1));
        }
      }
      default -> { }
    }
    return sync();
  }

  private Behavior<Command> onRefused(Refused r) {
    sendControl(response(-1).setCreated(true).setCanceled(true).setCancelReason(r.reason()));
    return this;
  }

  /**
   * etcd notifies only watches that have seen everything: the header says how far that is. It
   * carries the revision the watches were checked against, never a later one read afterwards: a
   * notification must not claim a revision whose events the watch has not been sent (clients
   * resume from it).
   */
  private Behavior<Command> notifyProgress() {
    long current = store.currentRevision();
    for (Watch w : watches.values()) {
      if (w.progressNotify && w.next > current && control.isEmpty()) {
        // as etcd's non-blocking send: a notification the buffer does not take is dropped, so a
        // stalled reader's notifications do not pile up; the next interval sends a fresh one
        offer(response(w.id, current).build());
      }
    }
    return this;
  }

  private void create(WatchCreateRequest c) {
    long current = store.currentRevision();
    long id = c.getWatchId() != 0 ? c.getWatchId() : nextFreeId();
    if (watches.containsKey(id)) {
      sendControl(response(id).setCreated(true).setCanceled(true)
          .setCancelReason("mvcc: duplicate watch ID provided on the WatchStream"));
      return;
    }
    long start = c.getStartRevision() > 0 ? c.getStartRevision() : current + 1;
    watches.put(id, new Watch(id, c, start));
    // The header says the revision the watch starts after (when it starts now): a client resuming
    // from it must not skip an event committed since.
    sendControl(response(id, current).setCreated(true));
  }

  private long nextFreeId() {
    while (watches.containsKey(nextWatchId)) {
      nextWatchId++;
    }
    return nextWatchId++;
  }

  /**
   * Brings every watch as far forward as the output buffer takes, then reports the watches and
   * those still behind (etcd's unsynced watchers, slow_watcher_total).
   */
  private Behavior<Command> sync() {
    long current = syncWatches();
    long behind = 0;
    for (Watch w : watches.values()) {
      if (w.next <= current) {
        behind++;
      }
    }
    stats.watching(watches.size(), behind);
    return this;
  }

  /**
   * Returns the revision synced to: a watch whose cursor is not past it is behind. Each round
   * first serves the watches near the head (within one batch of it), then moves those further
   * behind one batch on: a catch-up on a stream never holds back its live watches' events.
   */
  private long syncWatches() {
    long current = store.currentRevision();
    if (full && sizeWhenFull > 0 && out.size() >= sizeWhenFull) {
      // nothing taken since the buffer refused: a stalled reader costs no read of history (a
      // reader may drain the buffer between the refusal and the size read: 0 proves nothing)
      retrySoon();
      return current;
    }
    if (!flushControl()) {
      return current;
    }
    long near = current - MAX_REVISIONS_PER_BATCH + 1;
    for (int round = 0; ; round++) {
      if (round == ROUNDS_PER_MESSAGE) {
        getContext().getSelf().tell(new Committed(current)); // more history: go on after the others' turn
        return current;
      }
      long compacted = store.compactRevision();
      for (Iterator<Watch> it = watches.values().iterator(); it.hasNext(); ) {
        Watch w = it.next();
        // etcd's syncWatchers: only a start below the compaction revision is lost; the
        // compaction revision itself is still readable.
        // Its header has no revision: etcd sends this response with Revision 0 (watchable_store.go).
        if (w.next < compacted) {
          control.add(response(w.id, 0).setCanceled(true).setCompactRevision(compacted).build());
          it.remove();
        }
      }
      if (!flushControl()) {
        return current;
      }
      long liveFrom = lowestCursor(near, current);
      if (liveFrom <= current && !deliver(liveFrom, current)) {
        return current; // the client reads slowly: its watches catch up from history later
      }
      if (!flushControl()) {
        return current;
      }
      long from = lowestCursor(Long.MIN_VALUE, near - 1);
      if (from >= near) {
        if (lowestCursor(near, current) > current) {
          break;
        }
        continue; // a live watch's response was cut at its size bound: it goes on next round
      }
      if (!deliver(from, Math.min(current, from + MAX_REVISIONS_PER_BATCH - 1))) {
        return current;
      }
    }
    if (flushControl()) {
      retryDelay = FIRST_RETRY;
    }
    return current;
  }

  /** The lowest cursor in [low, high], or Long.MAX_VALUE if no watch has one there. */
  private long lowestCursor(long low, long high) {
    long lowest = Long.MAX_VALUE;
    for (Watch w : watches.values()) {
      if (w.next >= low && w.next <= high && w.next < lowest) {
        lowest = w.next;
      }
    }
    return lowest;
  }

  /**
   * Hands every watch whose cursor is in [from, to] its events of those revisions, one response
   * each; false if the buffer refused one (that watch's cursor stays, it gets them later).
   */
  private boolean deliver(long from, long to) {
    List<Event> events;
    try {
      events = store.events(from, to);
    } catch (EtcdException compactedMeanwhile) {
      return true; // the next round cancels what was compacted
    }
    // each event once without its previous kv, shared by every watch that did not ask for it
    List<Event> bare = null;
    ResponseHeader hdr = header.apply(store.currentRevision());
    boolean taken = true;
    for (Watch w : watches.values()) {
      if (w.next < from || w.next > to) {
        continue;
      }
      if (!w.prevKv && bare == null) {
        bare = withoutPrevKv(events);
      }
      List<Event> source = w.prevKv ? events : bare;
      List<Event> mine = new ArrayList<>();
      long upTo = to; // the last revision this response covers
      long bytes = 0;
      for (Event e : source) {
        long rev = e.getKv().getModRevision();
        if (rev < w.next || !w.wants(e)) {
          continue;
        }
        if (bytes >= MAX_RESPONSE_BYTES && rev > mine.get(mine.size() - 1).getKv().getModRevision()) {
          upTo = rev - 1; // a catch-up comes in responses of bounded size, whole revisions each
          break;
        }
        mine.add(e);
        bytes += e.getSerializedSize();
      }
      if (mine.isEmpty()) {
        w.next = to + 1;
        continue;
      }
      WatchResponse whole = WatchResponse.newBuilder().setHeader(hdr).setWatchId(w.id).addAllEvents(mine).build();
      List<WatchResponse> parts = w.fragment ? Fragments.split(whole, maxResponseBytes) : List.of(whole);
      if (parts.size() > 1) {
        // fragments go as control responses: all of them, in order, before this watch's next events
        control.addAll(parts);
        w.next = upTo + 1;
      } else if (send(whole)) {
        w.next = upTo + 1;
      } else {
        taken = false;
      }
    }
    return taken;
  }

  private static List<Event> withoutPrevKv(List<Event> events) {
    List<Event> out = new ArrayList<>(events.size());
    for (Event e : events) {
      out.add(e.hasPrevKv() ? e.toBuilder().clearPrevKv().build() : e);
    }
    return out;
  }

  private WatchResponse.Builder response(long watchId) {
    return response(watchId, store.currentRevision());
  }

  private WatchResponse.Builder response(long watchId, long revision) {
    return WatchResponse.newBuilder().setHeader(header.apply(revision)).setWatchId(watchId);
  }

  /** Queues a control response behind those still waiting and offers what the buffer takes. */
  private void sendControl(WatchResponse.Builder r) {
    control.add(r.build());
    flushControl();
  }

  /**
   * Offers waiting control responses in order; true when none is left. While some wait, a retry
   * comes soon: a client that reads keeps the wait short. A closed stream takes nothing, and its
   * end stops the router.
   */
  private boolean flushControl() {
    while (!control.isEmpty()) {
      QueueOfferResult result = offer(control.peek());
      if (result == QueueOfferResult.dropped()) {
        return false;
      }
      control.poll();
    }
    return true;
  }

  /**
   * The buffer is full: try again after a delay that doubles while the client does not read, so a
   * stalled client costs a read every 100 ms at most, and one that reads is served within a millisecond.
   */
  private void retrySoon() {
    if (!timers.isTimerActive(Retry.INSTANCE)) {
      timers.startSingleTimer(Retry.INSTANCE, retryDelay);
      Duration doubled = retryDelay.multipliedBy(2);
      retryDelay = doubled.compareTo(SYNC_INTERVAL) > 0 ? SYNC_INTERVAL : doubled;
    }
  }

  /** Offers a response to the stream's bounded buffer; false if it is full (try again later). */
  private boolean send(WatchResponse r) {
    return offer(r) == QueueOfferResult.enqueued();
  }

  /**
   * Every offer to the buffer: its events count as pending (etcd's watcher.send) while there.
   * Refused (dropped) while the buffer holds {@link #MAX_BUFFERED_BYTES} or more; a refusal
   * schedules a retry.
   */
  private QueueOfferResult offer(WatchResponse r) {
    QueueOfferResult result = QueueOfferResult.dropped();
    if (stats.pendingBytes() < MAX_BUFFERED_BYTES) {
      int bytes = r.getSerializedSize();
      stats.queued(r.getEventsCount(), bytes);
      result = out.offer(r);
      if (result != QueueOfferResult.enqueued()) {
        stats.refused(r.getEventsCount(), bytes);
      }
    }
    full = result == QueueOfferResult.dropped();
    if (full) {
      sizeWhenFull = out.size();
      retrySoon(); // the invariant that lets commits skip a full buffer: a retry is always due
    }
    return result;
  }
}
