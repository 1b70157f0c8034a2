package io.akkaetcd.corrupt;

import io.akkaetcd.cluster.PeerAsk;
import io.akkaetcd.proto.peerpb.HashKVAnswer;
import io.akkaetcd.proto.peerpb.HashKVAsk;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every other member for its HashKV at a revision (etcd's getPeerHashKVs), all at once,
 * each within the timeout. A member that does not answer gets an answer holding only its id and
 * why; the rules skip those, as etcd skips the peers it could not reach.
 */
final class PeerHashes {
  private static final Logger log = LoggerFactory.getLogger(PeerHashes.class);

  private final long self;
  private final PeerAsk ask;
  private final Supplier<List<Long>> members;
  private final Duration timeout;

  /** @param members the ids of the cluster's members, this one included (it is not asked) */
  PeerHashes(long self, PeerAsk ask, Supplier<List<Long>> members, Duration timeout) {
    this.self = self;
    this.ask = ask;
    this.members = members;
    this.timeout = timeout;
  }

  /** The peers' answers, in membership order, once every peer answered or timed out. */
  CompletableFuture<List<HashKVAnswer>> at(long revision) {
    List<CompletableFuture<HashKVAnswer>> asks = new ArrayList<>();
    for (long id : members.get()) {
      if (id != self) {
        asks.add(ask(id, revision));
      }
    }
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
        .thenApply(v -> asks.stream().map(CompletableFuture::join).toList());
  }

  private CompletableFuture<HashKVAnswer> ask(long id, long revision) {
    HashKVAsk request = HashKVAsk.newBuilder().setRevision(revision).build();
    return ask.ask(id, "/user/" + HashKvEndpoint.NAME, request, timeout).handle((reply, error) -> {
      if (reply instanceof HashKVAnswer a) {
        if (!a.getError().isEmpty()) {
          log.warn("{} cannot fetch hash from remote peer {} at revision {}: {}", Long.toHexString(self),
              Long.toHexString(id), revision, a.getError());
        }
        return a;
      }
      String why = error == null ? "unexpected reply " + reply : String.valueOf(error.getMessage());
      log.warn("{} failed hash kv request to {}: {}", Long.toHexString(self), Long.toHexString(id), why);
      return HashKVAnswer.newBuilder().setMemberId(id).setError(why).build();
    }).toCompletableFuture();
  }
}
