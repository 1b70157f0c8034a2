package io.akkaetcd.embed;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import com.google.protobuf.ByteString;
import io.akkaetcd.api.SingleWatch;
import io.akkaetcd.api.WatchService;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;

/**
 * etcd's Watch service in-process: each materialization of a {@link #watch} source is one watch
 * stream through the same {@link WatchService} (its own {@code WatchRouter}, registered with the
 * member's {@code WatchHub}) as a gRPC Watch call, so events, progress and cancellation follow the
 * wire API exactly: the first response says {@code created}, then come events in revision order
 * (history first when {@code start_revision} is in the past); a compacted start revision ends the
 * watch with a {@code canceled} response carrying {@code compact_revision}. Cancelling the source
 * (or its consumer stopping) ends the watch.
 */
public final class Watch {
  private final Calls calls;
  private final WatchService service;

  Watch(Calls calls, WatchService service) {
    this.calls = calls;
    this.service = service;
  }

  /** A watch as {@code request} describes it (key, range end, start revision, filters, options). */
  public Source<WatchResponse, NotUsed> watch(WatchCreateRequest request) {
    return SingleWatch.of(request, input -> calls.stream(Methods.WATCH, input, service::watch));
  }

  /** Watches one key from {@code startRevision} (0: from now on). */
  public Source<WatchResponse, NotUsed> watch(ByteString key, long startRevision) {
    return watch(WatchCreateRequest.newBuilder().setKey(key).setStartRevision(startRevision).build());
  }
}
