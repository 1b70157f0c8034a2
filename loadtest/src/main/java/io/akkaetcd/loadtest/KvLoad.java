package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.*;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** The KV workloads: put, range, txn-put (compare-and-swap) and txn-mixed. */
final class KvLoad {
  private KvLoad() {}

  /** Key number n in a key of {@code size} bytes (a varint at the front, zero padded, as etcd's benchmark). */
  static ByteString key(long n, int size) {
    byte[] k = new byte[Math.max(size, 1)];
    int i = 0;
    long v = (n << 1) ^ (n >> 63); // zig-zag, as Go's PutVarint
    while (i < k.length) {
      k[i++] = (byte) ((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
      v >>>= 7;
      if (v == 0) break;
    }
    return ByteString.copyFrom(k);
  }

  static ByteString randomBytes(int size) {
    byte[] b = new byte[size];
    ThreadLocalRandom.current().nextBytes(b);
    return ByteString.copyFrom(b);
  }

  static long keyNumber(long seq, int keySpace, boolean sequential) {
    return sequential ? seq % keySpace : ThreadLocalRandom.current().nextInt(keySpace);
  }

  /** Sends one put over connection {@code C}; calls {@code done} with Status.OK or the failure, once. */
  interface PutSender<C> {
    void send(C connection, PutRequest request, Consumer<Status> done);
  }

  static final PutSender<ManagedChannel> GRPC_PUT = (c, req, done) -> Rpc.call(c, Rpc.PUT, req, (r, s) -> done.accept(s));

  static Report put(Options o, List<ManagedChannel> ch, int clients, long total, double rate) throws InterruptedException {
    return put("put", o, ch, GRPC_PUT, clients, total, rate);
  }

  /** The put workload through any transport: the same keys, values and loop for each. */
  static <C> Report put(String name, Options o, List<C> ch, PutSender<C> sender, int clients, long total, double rate)
      throws InterruptedException {
    int keySize = o.integer("key-size", 8);
    int keySpace = o.integer("key-space-size", 1);
    boolean sequential = o.bool("sequential-keys", false);
    // --key-prefix puts every key under a prefix (a user's permission), before the --key-size bytes
    ByteString prefix = ByteString.copyFromUtf8(o.string("key-prefix", ""));
    ByteString value = randomBytes(o.integer("val-size", 8));
    return ClosedLoop.run(name, ch, clients, total, rate, (c, client, seq, done) -> {
      ByteString k = key(keyNumber(seq, keySpace, sequential), keySize);
      PutRequest req = PutRequest.newBuilder().setKey(prefix.isEmpty() ? k : prefix.concat(k)).setValue(value).build();
      sender.send(c, req, done);
    });
  }

  static Report range(Options o, List<ManagedChannel> ch, int clients, long total, double rate) throws InterruptedException {
    boolean allKeys = o.bool("all-keys", false);
    if (o.positional.size() < 2 && !allKeys) throw new IllegalArgumentException("range needs a key: range KEY [END], or --all-keys true");
    String consistency = o.string("consistency", "l");
    if (!consistency.equals("l") && !consistency.equals("s")) throw new IllegalArgumentException("--consistency must be l or s");
    RangeRequest.Builder b = RangeRequest.newBuilder().setSerializable(consistency.equals("s"))
        .setCountOnly(o.bool("count-only", false)).setLimit(o.integer("limit", 0));
    if (allKeys) {
      // etcd's "from key \0 to \0": every key (the workloads' keys are binary varints)
      b.setKey(ByteString.copyFrom(new byte[1])).setRangeEnd(ByteString.copyFrom(new byte[1]));
    } else {
      b.setKey(ByteString.copyFromUtf8(o.positional.get(1)));
      if (o.positional.size() > 2) b.setRangeEnd(ByteString.copyFromUtf8(o.positional.get(2)));
    }
    RangeRequest req = b.build();
    return ClosedLoop.run("range-" + consistency, ch, clients, total, rate,
        (c, client, seq, done) -> Rpc.call(c, Rpc.RANGE, req, (r, s) -> done.accept(s)));
  }

  /**
   * Compare-and-swap: client i owns key i and swaps it only if its mod revision is the one it last
   * wrote. A failed compare (the key was changed elsewhere, or on the first try) reads the current
   * mod revision in the same Txn and counts as a conflict, not an error.
   */
  static Report txnPut(Options o, List<ManagedChannel> ch, int clients, long total, double rate) throws InterruptedException {
    int keySize = o.integer("key-size", 8);
    ByteString value = randomBytes(o.integer("val-size", 8));
    long[] lastRevision = new long[clients];
    AtomicLong conflicts = new AtomicLong();
    Report report = ClosedLoop.run("txn-put", ch, clients, total, rate, (c, client, seq, done) -> {
      ByteString k = key(1_000_000_000L + client, keySize);
      TxnRequest req = TxnRequest.newBuilder()
          .addCompare(io.akkaetcd.proto.etcdserverpb.Compare.newBuilder().setKey(k)
              .setTarget(io.akkaetcd.proto.etcdserverpb.Compare.CompareTarget.MOD)
              .setResult(io.akkaetcd.proto.etcdserverpb.Compare.CompareResult.EQUAL).setModRevision(lastRevision[client]))
          .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(k).setValue(value)))
          .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(k)))
          .build();
      Rpc.call(c, Rpc.TXN, req, (r, s) -> {
        if (r != null) {
          if (r.getSucceeded()) {
            lastRevision[client] = r.getHeader().getRevision();
          } else {
            conflicts.incrementAndGet();
            RangeResponse rr = r.getResponses(0).getResponseRange();
            lastRevision[client] = rr.getKvsCount() == 0 ? 0 : rr.getKvs(0).getModRevision();
          }
        }
        done.accept(s);
      });
    });
    report.extra.put("conflicts", conflicts.get());
    return report;
  }

  /** Txns that read (a Range op) or write (a Put op) a random key, --rw-ratio reads per write. */
  static Report txnMixed(Options o, List<ManagedChannel> ch, int clients, long total, double rate) throws InterruptedException {
    int keySize = o.integer("key-size", 8);
    int keySpace = o.integer("key-space-size", 1);
    double rw = o.decimal("rw-ratio", 1.0);
    ByteString value = randomBytes(o.integer("val-size", 8));
    AtomicLong reads = new AtomicLong();
    Report report = ClosedLoop.run("txn-mixed", ch, clients, total, rate, (c, client, seq, done) -> {
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      ByteString k = key(rnd.nextInt(keySpace), keySize);
      boolean read = rnd.nextDouble() < rw / (rw + 1);
      if (read) reads.incrementAndGet();
      RequestOp op = read
          ? RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(k)).build()
          : RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(k).setValue(value)).build();
      Rpc.call(c, Rpc.TXN, TxnRequest.newBuilder().addSuccess(op).build(), (r, s) -> done.accept(s));
    });
    report.extra.put("reads", reads.get());
    return report;
  }
}
