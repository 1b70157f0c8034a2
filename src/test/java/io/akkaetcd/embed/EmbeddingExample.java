package io.akkaetcd.embed;

import akka.actor.ActorSystem;
import akka.stream.Materializer;
import akka.stream.javadsl.Sink;
import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.WatchCreateRequest;
import io.akkaetcd.server.EtcdServer;
import io.akkaetcd.server.Flags;
import io.akkaetcd.server.ServerConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The snippets of docs/embedding.md, compiled with the tests so that the document cannot drift
 * from the API. Each method is one snippet; keep them in step.
 */
final class EmbeddingExample {
  private EmbeddingExample() {}

  /** "Starting a member". */
  static EtcdServer startMember() {
    ServerConfig config = ServerConfig.fromFlags(Flags.parse(new String[] {
        "--name", "app1", "--data-dir", "/var/lib/app/etcd",
        "--listen-client-urls", "http://127.0.0.1:23790", "--advertise-client-urls", "http://127.0.0.1:23790"},
        Map.of()));
    return EtcdServer.start(config); // returns once the client URLs are bound; close() stops it
  }

  /** "Key-value". */
  static void keyValue(EtcdServer member) {
    Kv kv = member.client().kv();
    ByteString key = ByteString.copyFromUtf8("config/feature");
    kv.put(key, ByteString.copyFromUtf8("on"))
        .thenCompose(put -> kv.get(key)) // linearizable; kv.getSerializable(key) reads this member's state
        .thenAccept((RangeResponse r) -> System.out.println(r.getKvs(0).getValue().toStringUtf8()))
        .exceptionally(e -> {
          // EtcdException, with etcd's code and exact text (CompletionException only if you chain)
          Throwable cause = e instanceof CompletionException ? e.getCause() : e;
          if (cause instanceof EtcdException etcd && etcd.error() == EtcdError.EMPTY_KEY) {
            System.out.println("no key given");
          }
          return null;
        });
  }

  /** "Watch". */
  static void watch(EtcdServer member, ActorSystem system, long fromRevision) {
    member.client().watch()
        .watch(WatchCreateRequest.newBuilder()
            .setKey(ByteString.copyFromUtf8("config/"))
            .setRangeEnd(ByteString.copyFromUtf8("config0")) // the prefix config/
            .setStartRevision(fromRevision) // history from here, then live events
            .build())
        .mapConcat(response -> response.getEventsList())
        .runWith(Sink.foreach(event -> System.out.println(event.getType() + " " + event.getKv().getKey()
            .toStringUtf8())), Materializer.matFromSystem(system));
  }

  /** "Leases". */
  static void lease(EtcdServer member, ActorSystem system) {
    Lease leases = member.client().lease();
    leases.grant(10).thenAccept(grant -> {
      long id = grant.getID();
      member.client().kv().put(PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("alive/app1"))
          .setValue(ByteString.copyFromUtf8("up")).setLease(id).build());
      leases.keepAlive(id, Duration.ofSeconds(3)) // renews until the stream is cancelled
          .runWith(Sink.ignore(), Materializer.matFromSystem(system));
    });
  }

  /** "Member status". */
  static void status(EtcdServer member) {
    member.client().members().status()
        .thenAccept(s -> System.out.println("leader " + Long.toHexString(s.getLeader())
            + " at revision " + s.getHeader().getRevision()));
  }
}
