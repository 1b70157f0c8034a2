package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Defragment on LevelDB runs online, where etcd's stops the member: after many keys are written,
 * deleted and compacted, `etcdctl defrag` prints etcd's line and Status's dbSize drops, while a
 * writer and a reader that run throughout see no error. dbSizeInUse counts the rows held.
 */
class OnlineDefragmentTest {
  private static final int KEYS = 3000;

  @Test
  void defragmentShrinksTheFilesWithoutStoppingReadsOrWrites() throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.Kind.AKKA_ETCD, List.of());
         Client client = Client.builder().endpoints(server.clientUrl()).build()) {
      KV kv = client.getKVClient();
      // Incompressible values: the tables then hold about 3 MiB, so what the defragmentation
      // frees dwarfs what the writer below adds meanwhile.
      java.util.Random random = new java.util.Random(42);
      for (int i = 0; i < KEYS; i++) {
        byte[] value = new byte[1024];
        random.nextBytes(value);
        kv.put(utf8("bulk/" + i), ByteSequence.from(value)).get(10, TimeUnit.SECONDS);
      }
      long full = status(server).inUse();
      assertTrue(full > KEYS * 1024L, "in use with " + KEYS + " values of 1 KiB: " + full);
      kv.delete(utf8("bulk/"), io.etcd.jetcd.options.DeleteOption.newBuilder().isPrefix(true).build())
          .get(30, TimeUnit.SECONDS);
      long rev = kv.put(utf8("kept"), utf8("1")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
      kv.compact(rev, io.etcd.jetcd.options.CompactOption.newBuilder().withCompactPhysical(true).build())
          .get(30, TimeUnit.SECONDS);
      Sizes before = status(server);
      assertTrue(before.inUse() < full / 10, "compaction freed the rows: " + before.inUse());

      AtomicBoolean running = new AtomicBoolean(true);
      AtomicInteger writes = new AtomicInteger();
      AtomicInteger reads = new AtomicInteger();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        while (running.get()) {
          int i = writes.get();
          kv.put(utf8("during/" + i), utf8(Integer.toString(i))).join();
          writes.incrementAndGet();
        }
      });
      CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
        while (running.get()) {
          assertEquals("1", kv.get(utf8("kept")).join().getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
          reads.incrementAndGet();
        }
      });
      Etcdctl.Result defrag = server.ctl("defrag");
      running.set(false);
      writer.get(30, TimeUnit.SECONDS); // no write failed during the defragmentation
      reader.get(30, TimeUnit.SECONDS);
      assertEquals(0, defrag.exit(), defrag.all());
      assertEquals("Finished defragmenting etcd member[" + server.endpoint() + "]\n", defrag.stdout());
      Sizes after = status(server);
      assertTrue(after.dbSize() < before.dbSize(), "dbSize " + before.dbSize() + " -> " + after.dbSize());
      assertTrue(writes.get() > 0 && reads.get() > 0, writes + " writes, " + reads + " reads");
      assertEquals(writes.get(), kv.get(utf8("during/"), io.etcd.jetcd.options.GetOption.newBuilder().isPrefix(true)
          .withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount());
    }
  }

  /** dbSize and dbSizeInUse as `etcdctl endpoint status -w json` prints them. */
  private record Sizes(long dbSize, long inUse) {}

  private static Sizes status(ServerProcess server) {
    Etcdctl.Result r = server.ctl("endpoint", "status", "-w", "json");
    java.util.regex.Matcher size = java.util.regex.Pattern.compile("\"dbSize\":(\\d+)").matcher(r.stdout());
    java.util.regex.Matcher inUse = java.util.regex.Pattern.compile("\"dbSizeInUse\":(\\d+)").matcher(r.stdout());
    assertTrue(size.find() && inUse.find(), r.all());
    return new Sizes(Long.parseLong(size.group(1)), Long.parseLong(inUse.group(1)));
  }

  private static ByteSequence utf8(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
