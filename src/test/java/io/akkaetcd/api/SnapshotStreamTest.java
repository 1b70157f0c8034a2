package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.stream.javadsl.Sink;
import com.google.protobuf.ByteString;
import io.akkaetcd.bbolt.BboltReader;
import io.akkaetcd.bbolt.EtcdExport;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.SnapshotResponse;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Maintenance.Snapshot's messages as etcd sends them, and a cancelled stream's backup released. */
class SnapshotStreamTest {
  private static final int REVISIONS = 20_000;
  private static ActorSystem system;

  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    system = ActorSystem.create("snapshot-stream-test");
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  /** REVISIONS puts of 100-byte values (about 2.5 MB of image); counts its closes. */
  static final class FakeBackup implements KvStore.Backup {
    final AtomicInteger closed = new AtomicInteger();
    final CountDownLatch closedLatch = new CountDownLatch(1);

    @Override
    public void revisions(Sink<Revision> sink) throws IOException {
      for (int i = 0; i < REVISIONS; i++) {
        sink.accept(new Revision(i + 2, 0, false, KeyValue.newBuilder().setKey(ByteString.copyFromUtf8("k" + i))
            .setValue(ByteString.copyFromUtf8("v".repeat(100))).setCreateRevision(i + 2).setModRevision(i + 2)
            .setVersion(1).build()));
      }
    }

    @Override
    public void leases(Sink<Lease> sink) {}

    @Override
    public long consistentIndex() {
      return 1;
    }

    @Override
    public long finishedCompactRevision() {
      return 0;
    }

    @Override
    public long scheduledCompactRevision() {
      return 0;
    }

    @Override
    public List<Row> rows() {
      return List.of();
    }

    @Override
    public void close() {
      closed.incrementAndGet();
      closedLatch.countDown();
    }
  }

  @Test
  void chunksOfAtMost32KiBCountDownThenTheSha256() throws Exception {
    FakeBackup backup = new FakeBackup();
    List<SnapshotResponse> messages = SnapshotStream.of(() -> backup, List.of(), "test", () -> SavePacer.OFF)
        .runWith(Sink.seq(), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertTrue(messages.size() > 10, messages.size() + " messages");
    Path image = tmp.resolve("image.db");
    long total = 0;
    try (OutputStream out = Files.newOutputStream(image)) {
      for (SnapshotResponse m : messages.subList(0, messages.size() - 1)) {
        assertTrue(m.getBlob().size() > 0 && m.getBlob().size() <= SnapshotStream.CHUNK_BYTES, "" + m.getBlob().size());
        m.getBlob().writeTo(out);
        total += m.getBlob().size();
      }
    }
    long sent = 0;
    for (SnapshotResponse m : messages.subList(0, messages.size() - 1)) {
      sent += m.getBlob().size();
      assertEquals(total - sent, m.getRemainingBytes()); // etcd: total - sent after this message
    }
    SnapshotResponse last = messages.get(messages.size() - 1);
    assertEquals(0, last.getRemainingBytes());
    assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(image)), last.getBlob().toByteArray());
    long[] keys = {0};
    try (BboltReader reader = BboltReader.open(image)) {
      reader.forEach(ByteString.copyFromUtf8("key"), (k, v) -> keys[0]++);
    }
    assertEquals(REVISIONS, keys[0]);
    // the writer thread closes the backup after it completes the stream
    assertTrue(backup.closedLatch.await(30, TimeUnit.SECONDS), "the backup was not closed");
    assertEquals(1, backup.closed.get());
  }

  @Test
  void eachMessageIsWrittenAsProtobufWouldSerializeIt() throws Exception {
    List<EncodedMessage> messages = SnapshotStream.encoded(FakeBackup::new, List.of(), "test", () -> SavePacer.OFF)
        .runWith(Sink.seq(), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertTrue(messages.size() > 10, messages.size() + " messages");
    for (EncodedMessage m : messages) {
      byte[] bytes = m.whole().toArray();
      assertArrayEquals(SnapshotResponse.parseFrom(bytes).toByteArray(), bytes);
    }
    // The last message has remaining_bytes 0, which proto3 leaves out: the blob's tag comes first.
    byte[] last = messages.get(messages.size() - 1).whole().toArray();
    assertEquals(2 + 32, last.length);
    assertEquals((SnapshotResponse.BLOB_FIELD_NUMBER << 3) | 2, last[0]);
  }

  @Test
  void aPacedSaveSendsTheSameBytes() throws Exception {
    List<EncodedMessage> unpaced = SnapshotStream.encoded(FakeBackup::new, List.of(), "test", () -> SavePacer.OFF)
        .runWith(Sink.seq(), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    // A member applying a million entries between any two looks, judged at every message: busy
    // from the first; 2.5 MB at 8 MiB/s.
    java.util.concurrent.atomic.AtomicLong index = new java.util.concurrent.atomic.AtomicLong();
    SavePacer pacer = new SavePacer(() -> index.addAndGet(1_000_000), 8L << 20, 1000, 1, SavePacer.Clock.SYSTEM);
    List<EncodedMessage> paced = SnapshotStream.encoded(FakeBackup::new, List.of(), "test", () -> pacer)
        .runWith(Sink.seq(), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertEquals(unpaced.size(), paced.size());
    for (int i = 0; i < paced.size(); i++) {
      assertEquals(unpaced.get(i).whole(), paced.get(i).whole(), "message " + i);
    }
    assertTrue(pacer.pacedNanos() > 0, "the busy save was not paced");
  }

  @Test
  void aClientThatGoesAwayReleasesTheBackup() throws Exception {
    FakeBackup backup = new FakeBackup();
    SnapshotResponse first = SnapshotStream.of(() -> backup, List.of(), "test", () -> SavePacer.OFF)
        .runWith(Sink.head(), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertEquals(SnapshotStream.CHUNK_BYTES, first.getBlob().size());
    assertTrue(backup.closedLatch.await(30, TimeUnit.SECONDS), "the backup was not closed");
    assertEquals(1, backup.closed.get());
  }
}
