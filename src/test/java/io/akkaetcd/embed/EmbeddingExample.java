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
import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * The snippets of docs/embedding.md, compiled with the tests so that the document cannot drift
 * from the API. Each method is one snippet; keep them in step.
 */
final class EmbeddingExample {
  private EmbeddingExample() {}

  /** "Starting a member". */
  static EmbeddedEtcd startMember() {
    EtcdConfig config = EtcdConfig.builder() // etcd's settings, by etcd's names and defaults
        .name("app1")
        .dataDir("/var/lib/app/etcd")
        .listenClientUrls("http://127.0.0.1:23790") // none at all: in-process client only
        .advertiseClientUrls("http://127.0.0.1:23790")
        .build(); // a bad value throws here, with etcd's text
    EmbeddedEtcd member = EmbeddedEtcd.start(config); // returns once the data dir is open and the URLs bound
    member.ready().toCompletableFuture().join(); // serving clients (etcd's ReadyNotify)
    return member; // member.close() stops it; so does the JVM's exit
  }

  /** "Inside your ActorSystem". */
  static EmbeddedEtcd startInside(akka.actor.typed.ActorSystem<?> system) {
    EtcdConfig config = EtcdConfig.builder()
        .name("app1")
        .dataDir("/var/lib/app/etcd")
        .listenClientUrls("http://127.0.0.1:23790")
        .advertiseClientUrls("http://127.0.0.1:23790")
        .build();
    EmbeddedEtcd member = EmbeddedEtcd.start(config, system); // its actors run in your system
    member.ready().toCompletableFuture().join();
    return member; // member.close() stops the member, not your system; your system's shutdown stops it too
  }

  /** "Configuring from HOCON". */
  static EmbeddedEtcd startFromHocon() {
    // application.conf: akka-etcd { name = "app1", data-dir = "/var/lib/app/etcd",
    //   listen-client-urls = [], heartbeat-interval = 100ms, election-timeout = 1s }
    return EmbeddedEtcd.start(EtcdConfig.fromConfig(com.typesafe.config.ConfigFactory.load()));
  }

  /** "Key-value". */
  static void keyValue(EmbeddedEtcd member) {
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
  static void watch(EmbeddedEtcd member, ActorSystem system, long fromRevision) {
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
  static void lease(EmbeddedEtcd member, ActorSystem system) {
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
  static void status(EmbeddedEtcd member) {
    member.client().members().status()
        .thenAccept(s -> System.out.println("leader " + Long.toHexString(s.getLeader())
            + " at revision " + s.getHeader().getRevision()));
  }
}
