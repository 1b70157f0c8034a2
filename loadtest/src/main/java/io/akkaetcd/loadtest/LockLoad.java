package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.v3lockpb.LockRequest;
import io.akkaetcd.proto.v3lockpb.UnlockRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.List;

/**
 * lock: each client holds a lease of its own and runs Lock then Unlock cycles (v3lockpb.Lock) on
 * name {@code lock-(client mod --names)}; one operation is one whole cycle, so the figure is
 * lock+unlock cycles per second. With --names below --clients, clients of one name wait for each other.
 */
final class LockLoad {
  private LockLoad() {}

  static List<Report> lock(Options o, List<ManagedChannel> ch, int clients, long total, double rate)
      throws InterruptedException {
    int names = o.integer("names", clients);
    long ttl = o.longValue("ttl", 600);
    long[] leases = new long[clients];
    Report grants = LeaseLoad.grant(ch, Math.min(clients, 64), clients, ttl, leases);
    if (grants.errorCount() > 0) return List.of(grants);
    return List.of(grants, ClosedLoop.run("lock", ch, clients, total, rate, (c, client, seq, done) -> {
      LockRequest lock = LockRequest.newBuilder().setName(ByteString.copyFromUtf8("lock-" + client % names))
          .setLease(leases[client]).build();
      Rpc.call(c, Rpc.LOCK, lock, (held, s) -> {
        if (held == null) {
          done.accept(s);
          return;
        }
        Rpc.call(c, Rpc.UNLOCK, UnlockRequest.newBuilder().setKey(held.getKey()).build(), (r, u) -> done.accept(u));
      });
    }));
  }
}
