package io.akkaetcd.loadtest;

import io.akkaetcd.proto.etcdserverpb.*;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** The lease workloads: keep-alive throughput over a set of leases, and grants of many leases. */
final class LeaseLoad {
  private LeaseLoad() {}

  /** Grants {@code count} leases of {@code ttl} seconds with {@code clients} concurrent grants. */
  static Report grant(List<ManagedChannel> ch, int clients, int count, long ttl, long[] idsOut) throws InterruptedException {
    return ClosedLoop.run("lease-grant", ch, clients, count, 0, (c, client, seq, done) ->
        Rpc.call(c, Rpc.LEASE_GRANT, LeaseGrantRequest.newBuilder().setTTL(ttl).build(), (r, s) -> {
          if (r != null && idsOut != null) idsOut[(int) seq] = r.getID();
          done.accept(s);
        }));
  }

  /**
   * lease-keepalive: --leases leases, then one keep-alive stream per client; each client sends a
   * keep-alive for the next lease (round robin over all of them) when the previous one is answered.
   */
  static List<Report> keepAlive(Options o, List<ManagedChannel> ch, int clients, long total, double rate)
      throws InterruptedException {
    int leaseCount = o.integer("leases", 1000);
    long ttl = o.longValue("ttl", 600);
    long[] ids = new long[leaseCount];
    Report grants = grant(ch, Math.min(clients, 64), leaseCount, ttl, ids);
    if (grants.errorCount() > 0) return List.of(grants);

    List<AtomicReference<Consumer<Status>>> pending = new ArrayList<>();
    List<Rpc.Stream<LeaseKeepAliveRequest, LeaseKeepAliveResponse>> streams = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      AtomicReference<Consumer<Status>> slot = new AtomicReference<>();
      pending.add(slot);
      Rpc.Stream<LeaseKeepAliveRequest, LeaseKeepAliveResponse> stream = new Rpc.Stream<>(ch.get(i % ch.size()), Rpc.KEEP_ALIVE, resp -> {
        Consumer<Status> done = slot.getAndSet(null);
        if (done != null) done.accept(resp.getTTL() > 0 ? Status.OK : Status.NOT_FOUND.withDescription("lease expired"));
      });
      // a stream that ends answers its outstanding keep-alive with the reason, so no client waits forever
      stream.closed.thenAccept(status -> {
        Consumer<Status> done = slot.getAndSet(null);
        if (done != null) done.accept(status.isOk() ? Status.UNAVAILABLE.withDescription("stream closed") : status);
      });
      streams.add(stream);
    }
    try {
      return List.of(grants, ClosedLoop.run("lease-keepalive", ch, clients, total, rate, (c, client, seq, done) -> {
        var stream = streams.get(client);
        if (stream.closed.isDone()) {
          done.accept(stream.closed.join().isOk() ? Status.UNAVAILABLE.withDescription("stream closed") : stream.closed.join());
          return;
        }
        pending.get(client).set(done);
        stream.send(LeaseKeepAliveRequest.newBuilder().setID(ids[(int) ((client + seq) % leaseCount)]).build());
      }));
    } finally {
      streams.forEach(Rpc.Stream::cancel);
    }
  }
}
