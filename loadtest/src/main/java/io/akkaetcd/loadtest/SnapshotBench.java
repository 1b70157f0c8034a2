package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.SnapshotRequest;
import io.akkaetcd.proto.etcdserverpb.SnapshotResponse;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue #30's snapshot targets, etcd and akka-etcd in turn with the same flags: fill --keys keys of
 * --val-size bytes; save a snapshot (Maintenance.Snapshot to a file, as etcdctl snapshot save) and
 * its time and the member's RSS growth during it, then two more saves (the median of the three);
 * puts with 64 clients alone (after a pass that creates their keys) and while snapshots are saved
 * back to back (throughput loss), each save synced to disk as etcdctl syncs its file; then the
 * restore (etcdctl snapshot restore, or bin/akka-etcd snapshot restore) plus the first start until
 * a linearizable read answers.
 */
public final class SnapshotBench {
  static final String USAGE = String.join("\n",
      "usage: loadtest/snapshot [--keys 1000000] [--val-size 256] [--puts 50000] [--work DIR] [--save-dir DIR] [--no-etcd]",
      "--save-dir: where the saved files go (default: the work directory, on the members' disk); another",
      "disk (e.g. /dev/shm) is a backup taken from another machine, whose file does not share the members' disk.",
      "Targets: save time <= etcd's, RSS growth <= 64 MiB, restore+start <= etcd's, put loss <= 20 %.");

  private static final MethodDescriptor<SnapshotRequest, SnapshotResponse> SNAPSHOT = MethodDescriptor
      .<SnapshotRequest, SnapshotResponse>newBuilder().setType(MethodDescriptor.MethodType.SERVER_STREAMING)
      .setFullMethodName("etcdserverpb.Maintenance/Snapshot")
      .setRequestMarshaller(ProtoUtils.marshaller(SnapshotRequest.getDefaultInstance()))
      .setResponseMarshaller(ProtoUtils.marshaller(SnapshotResponse.getDefaultInstance())).build();

  private SnapshotBench() {}

  public static void main(String[] args) throws Exception {
    Options o = new Options(args);
    if (o.has("help")) {
      System.out.println(USAGE);
      return;
    }
    int keys = o.integer("keys", 1_000_000);
    int valSize = o.integer("val-size", 256);
    long puts = o.longValue("puts", 50_000);
    boolean withEtcd = !o.bool("no-etcd", false);
    String root = System.getProperty("akka-etcd.home", ".");
    String akka = o.string("akka-etcd", root + "/bin/akka-etcd");
    String etcd = o.string("etcd", "etcd");
    Path work = Files.createTempDirectory(Path.of(o.string("work", System.getProperty("java.io.tmpdir"))), "snapshot-bench");
    String saveDirOption = o.string("save-dir", "");
    Path saveDir = saveDirOption.isEmpty() ? work : Files.createTempDirectory(Path.of(saveDirOption), "snapshot-bench");
    o.checkAllUsed();
    List<String> rows = new ArrayList<>();
    try {
      if (withEtcd) {
        rows.add(run(ServerUnderTest.Kind.ETCD, etcd, List.of("etcdctl", "snapshot", "restore"), work, saveDir, keys, valSize, puts));
      }
      rows.add(run(ServerUnderTest.Kind.AKKA_ETCD, akka, List.of(akka, "snapshot", "restore"), work, saveDir, keys, valSize, puts));
    } finally {
      ServerUnderTest.deleteTree(work);
      ServerUnderTest.deleteTree(saveDir);
    }
    System.out.println();
    System.out.println("| server | keys | file MiB | save s, first / median of 3 | RSS growth MiB, first save (of it anonymous) | puts/s alone | puts/s during saves | loss | restore s | first start s |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    rows.forEach(System.out::println);
  }

  private static String run(ServerUnderTest.Kind kind, String executable, List<String> restore, Path work, Path saveDir,
      int keys, int valSize, long puts) throws Exception {
    Path snap = saveDir.resolve(kind.name().toLowerCase() + ".db");
    Path saved = Files.createDirectories(work.resolve("saved"));
    Path restoredDir = Files.createDirectories(work.resolve("restored"));
    double saveSeconds;
    double saveMedian;
    long rssGrowth;
    long anonGrowth;
    Report alone;
    Report during;
    try (ServerUnderTest s = new ServerUnderTest(kind, executable, saved, List.of())) {
      s.start();
      List<ManagedChannel> ch = Rpc.channels(List.of(s.endpoint), 8);
      try {
        ByteString value = KvLoad.randomBytes(valSize);
        ClosedLoop.run("fill", ch, 64, keys, 0, (c, client, seq, done) -> Rpc.call(c, Rpc.PUT,
            PutRequest.newBuilder().setKey(KvLoad.key(seq, 16)).setValue(value).build(), (r, st) -> done.accept(st)));
        long rssBefore = s.rssBytes();
        long anonBefore = s.rssAnonBytes();
        AtomicLong rssPeak = new AtomicLong(rssBefore);
        AtomicLong anonPeak = new AtomicLong(anonBefore);
        AtomicBoolean saving = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
          while (saving.get()) {
            rssPeak.accumulateAndGet(s.rssBytes(), Math::max);
            anonPeak.accumulateAndGet(s.rssAnonBytes(), Math::max);
            try {
              Thread.sleep(20); // RSS sampling period
            } catch (InterruptedException e) {
              return;
            }
          }
        });
        sampler.start();
        long t0 = System.nanoTime();
        save(ch.get(0), snap).get(30, TimeUnit.MINUTES);
        saveSeconds = (System.nanoTime() - t0) / 1e9;
        saving.set(false);
        sampler.join();
        rssGrowth = rssPeak.get() - rssBefore;
        anonGrowth = anonPeak.get() - anonBefore;
        // Two more saves: the first is also the JVM's first run of the save path (compiled as it
        // goes), the median of the three is what a member that has saved before takes.
        List<Double> times = new ArrayList<>(List.of(saveSeconds));
        for (int i = 0; i < 2; i++) {
          long t1 = System.nanoTime();
          save(ch.get(0), saveDir.resolve("again.db")).get(30, TimeUnit.MINUTES);
          times.add((System.nanoTime() - t1) / 1e9);
        }
        times.sort(null);
        saveMedian = times.get(1);

        // Unmeasured: the first pass puts new keys (a new key space after the fill's), the measured
        // ones overwrite them; measured first, "alone" ran about half as fast as a second pass.
        putLoad("puts to create the keys", ch, puts, value);
        alone = putLoad("puts alone", ch, puts, value);
        AtomicBoolean loading = new AtomicBoolean(true);
        Path again = saveDir.resolve("again.db");
        CompletableFuture<Integer> saves = CompletableFuture.supplyAsync(() -> {
          int n = 0;
          while (loading.get()) {
            try {
              save(ch.get(0), again).get(30, TimeUnit.MINUTES);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            n++;
          }
          return n;
        });
        during = putLoad("puts during saves", ch, puts, value);
        loading.set(false);
        during.extra.put("saves", saves.get(30, TimeUnit.MINUTES));
      } finally {
        Rpc.shutdown(ch);
      }
    }
    ServerUnderTest restored = new ServerUnderTest(kind, executable, restoredDir, List.of());
    double restoreSeconds;
    long firstStartMs;
    try (restored) {
      List<String> cmd = new ArrayList<>(restore);
      cmd.add(snap.toString());
      cmd.addAll(restored.restoreFlags());
      long t0 = System.nanoTime();
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(work.resolve("restore.log").toFile()).start();
      if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + Files.readString(work.resolve("restore.log")));
      }
      restoreSeconds = (System.nanoTime() - t0) / 1e9;
      firstStartMs = restored.start();
    }
    double mib = 1024.0 * 1024;
    double loss = 1 - during.throughput() / alone.throughput();
    String name = kind == ServerUnderTest.Kind.ETCD ? "etcd" : "akka-etcd";
    System.out.printf(Locale.ROOT, "RESULT {\"server\":\"%s\",\"keys\":%d,\"valSize\":%d,\"fileBytes\":%d,\"saveSeconds\":%.3f,\"saveMedianSeconds\":%.3f,"
        + "\"rssGrowthBytes\":%d,\"rssAnonGrowthBytes\":%d,\"putsAlone\":%.1f,\"putsDuringSaves\":%.1f,\"saves\":%s,\"restoreSeconds\":%.3f,"
        + "\"firstStartMs\":%d}%n", name, keys, valSize, Files.size(snap), saveSeconds, saveMedian, rssGrowth, anonGrowth, alone.throughput(),
        during.throughput(), during.extra.get("saves"), restoreSeconds, firstStartMs);
    return String.format(Locale.ROOT, "| %s | %,d | %.1f | %.2f / %.2f | %.1f (%.1f) | %,.0f | %,.0f | %.0f %% | %.2f | %.2f |", name,
        keys, Files.size(snap) / mib, saveSeconds, saveMedian, rssGrowth / mib, anonGrowth / mib, alone.throughput(), during.throughput(), loss * 100,
        restoreSeconds, firstStartMs / 1000.0);
  }

  /** 64 clients over 8 connections put 8-byte keys (100,000 of them) with the fill's values. */
  private static Report putLoad(String name, List<ManagedChannel> ch, long total, ByteString value)
      throws InterruptedException {
    return ClosedLoop.run(name, ch, 64, total, 0, (c, client, seq, done) -> Rpc.call(c, Rpc.PUT,
        PutRequest.newBuilder().setKey(KvLoad.key(seq % 100_000, 8)).setValue(value).build(), (r, st) -> done.accept(st)));
  }

  /**
   * Maintenance.Snapshot into {@code file}, every blob including the final sha256, then synced to
   * disk before it counts as saved, as etcdctl's save syncs its file before the rename. Unsynced,
   * the last save's writeback would still be running (and slowing fsyncs) in the puts after it.
   */
  private static CompletableFuture<Void> save(ManagedChannel ch, Path file) throws IOException {
    CompletableFuture<Void> done = new CompletableFuture<>();
    FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING);
    OutputStream out = Channels.newOutputStream(channel);
    ClientCall<SnapshotRequest, SnapshotResponse> call = ch.newCall(SNAPSHOT, CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(SnapshotResponse message) {
        try {
          message.getBlob().writeTo(out);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        call.request(1);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        // Synced off the channel's event loop, which the put load shares.
        CompletableFuture.runAsync(() -> {
          try (out) {
            if (status.isOk()) {
              channel.force(true);
            }
          } catch (IOException e) {
            done.completeExceptionally(e);
            return;
          }
          if (status.isOk()) {
            done.complete(null);
          } else {
            done.completeExceptionally(status.asRuntimeException());
          }
        });
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage(SnapshotRequest.getDefaultInstance());
    call.halfClose();
    return done;
  }
}
