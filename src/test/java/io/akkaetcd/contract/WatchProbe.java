package io.akkaetcd.contract;

import akka.NotUsed;
import akka.stream.Materializer;
import akka.stream.javadsl.Sink;
import akka.stream.javadsl.SinkQueueWithCancel;
import akka.stream.javadsl.Source;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import io.akkaetcd.proto.mvccpb.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The responses of one watch stream, read one at a time with a deadline. */
final class WatchProbe implements AutoCloseable {
  private final SinkQueueWithCancel<WatchResponse> queue;

  private WatchProbe(SinkQueueWithCancel<WatchResponse> queue) {
    this.queue = queue;
  }

  static WatchProbe run(Source<WatchResponse, NotUsed> watch, Materializer mat) {
    return new WatchProbe(watch.runWith(Sink.queue(), mat));
  }

  /** The next response; fails if the stream ends or fails first. */
  WatchResponse next() {
    Optional<WatchResponse> r = Calls.await(queue.pull());
    return r.orElseThrow(() -> new AssertionError("the watch stream ended"));
  }

  /** The next responses, until they have carried {@code n} events; fails on any response without events. */
  List<WatchResponse> responsesWithEvents(int n) {
    List<WatchResponse> out = new ArrayList<>();
    int events = 0;
    while (events < n) {
      WatchResponse r = next();
      if (r.getEventsCount() == 0) {
        throw new AssertionError("a response without events while " + (n - events) + " were due: " + r);
      }
      out.add(r);
      events += r.getEventsCount();
    }
    return out;
  }

  /** The events of the next responses, until {@code n} have come. */
  List<Event> events(int n) {
    return responsesWithEvents(n).stream().flatMap(r -> r.getEventsList().stream()).toList();
  }

  @Override
  public void close() {
    queue.cancel();
  }
}
