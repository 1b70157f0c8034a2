package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.proto.etcdserverpb.WatchRequest;
import io.akkaetcd.proto.etcdserverpb.WatchResponse;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A Watch stream that carries one watch, for in-process callers: its input is the create request,
 * then held open until the output terminates (an input that ended would end the stream). Each
 * materialization opens one stream through {@code open}.
 */
public final class SingleWatch {
  private SingleWatch() {}

  public static Source<WatchResponse, NotUsed> of(WatchCreateRequest request,
      Function<Source<WatchRequest, NotUsed>, Source<WatchResponse, NotUsed>> open) {
    return Source.fromMaterializer((mat, attributes) -> {
      CompletableFuture<Optional<WatchRequest>> inputEnd = new CompletableFuture<>();
      Source<WatchRequest, NotUsed> input = Source.<WatchRequest>maybe()
          .mapMaterializedValue(end -> {
            inputEnd.whenComplete((v, e) -> end.complete(Optional.empty()));
            return NotUsed.getInstance();
          })
          .prepend(Source.single(WatchRequest.newBuilder().setCreateRequest(request).build()));
      return open.apply(input)
          .watchTermination((m, done) -> {
            done.whenComplete((d, e) -> inputEnd.complete(Optional.empty()));
            return m;
          });
    }).mapMaterializedValue(f -> NotUsed.getInstance());
  }
}
