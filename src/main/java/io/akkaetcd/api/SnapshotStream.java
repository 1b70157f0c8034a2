package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.OverflowStrategy;
import akka.stream.QueueOfferResult;
import akka.stream.javadsl.Source;
import akka.stream.javadsl.SourceQueueWithComplete;
import akka.util.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.akkaetcd.bbolt.BboltWriter;
import io.akkaetcd.bbolt.EtcdBuckets;
import io.akkaetcd.bbolt.EtcdExport;
import io.akkaetcd.bbolt.SnapshotFraming;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.os.BackgroundPriority;
import io.akkaetcd.proto.etcdserverpb.SnapshotResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maintenance.Snapshot's stream (etcd's v3rpc/maintenance.go): the store's bbolt image in etcd's
 * layout as messages of at most {@value #CHUNK_BYTES} bytes, each with the bytes remaining after
 * it, then one message with remaining 0 and the image's sha256. The image is written on a thread
 * of its own from a {@link KvStore.Backup} (a LevelDB snapshot, so writes go on) straight into the
 * stream: a slow client slows the writer, and memory holds at most 2 × IN_FLIGHT chunks, never the image.
 * The writer runs at {@link BackgroundPriority}: a save uses the CPU that requests leave idle; and
 * while the member applies writes its {@link SavePacer} caps the bytes a second, which bounds the
 * work the save makes downstream at normal priority (the sending thread, the client).
 *
 * <p>Each message is written in its wire bytes as the image is written: the image's size is known
 * before its first byte, so every chunk's header (remaining bytes, blob length) is too, and the
 * image's bytes are copied once, into the message that goes out (no SnapshotResponse to build and
 * serialize: a million keys' image was twice 330 MB of garbage more, loadtest/RESULTS.md).
 */
final class SnapshotStream {
  static final int CHUNK_BYTES = 32 * 1024;
  /**
   * Messages offered and not yet taken by the stream: the writer waits only for the oldest, so it
   * is not held up by a round trip to the stream per message. Memory: this many chunks, twice.
   */
  static final int IN_FLIGHT = 8;
  private static final Logger log = LoggerFactory.getLogger(SnapshotStream.class);

  private SnapshotStream() {}

  /**
   * The stream of the backup {@code open} takes when the stream starts (closed when it ends), with
   * {@code clusterRows} for the buckets the store does not hold, as SnapshotResponse messages.
   */
  static Source<SnapshotResponse, NotUsed> of(Supplier<KvStore.Backup> open, List<EtcdExport.Row> clusterRows,
      String member, Supplier<SavePacer> pacer) {
    return encoded(open, clusterRows, member, pacer).map(m -> SnapshotResponse.parseFrom(m.whole().toArrayUnsafe()));
  }

  /** The same stream, each SnapshotResponse in its protobuf bytes. */
  static Source<EncodedMessage, NotUsed> encoded(Supplier<KvStore.Backup> open, List<EtcdExport.Row> clusterRows,
      String member, Supplier<SavePacer> pacer) {
    return Source.<EncodedMessage>queue(IN_FLIGHT, OverflowStrategy.backpressure(), IN_FLIGHT)
        .mapMaterializedValue(queue -> {
          Thread writer = new Thread(() -> send(open, clusterRows, queue, member, pacer.get()), "snapshot-save");
          writer.setDaemon(true);
          writer.start();
          return NotUsed.getInstance();
        });
  }

  private static void send(Supplier<KvStore.Backup> open, List<EtcdExport.Row> clusterRows,
      SourceQueueWithComplete<EncodedMessage> queue, String member, SavePacer pacer) {
    BackgroundPriority.lower();
    long started = System.nanoTime();
    try (KvStore.Backup backup = open.get()) {
      Chunks chunks = new Chunks(queue, pacer);
      log.info("{} sending database snapshot to client", member);
      long size = BboltWriter.write(new EtcdBuckets(backup, clusterRows), chunks, chunks::imageSize);
      chunks.finish();
      chunks.drain();
      log.info("{} sent database snapshot to client [{} bytes in {} ms, {} ms of it paced for writes]", member,
          size, (System.nanoTime() - started) / 1_000_000, pacer.pacedNanos() / 1_000_000);
      queue.complete();
    } catch (ClientGone e) {
      log.info("{} database snapshot not sent: the client went away", member);
    } catch (IOException | RuntimeException e) {
      log.warn("{} failed to send database snapshot: {}", member, e.toString());
      queue.fail(e);
    }
  }

  /** The stream ended from the client's side (cancelled, or the connection closed). */
  private static final class ClientGone extends IOException {
    ClientGone(String why) {
      super(why);
    }
  }

  /**
   * One SnapshotResponse's bytes with a blob of {@code blob} bytes, remaining_bytes (field 2,
   * absent when 0 as proto3 encodes it) and the blob's tag and length written, as protobuf orders
   * them; the blob goes at the returned array's end, from {@link #blobStart}.
   */
  static byte[] message(long remaining, int blob) {
    byte[] message = new byte[headerSize(remaining, blob) + blob];
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(message);
      if (remaining != 0) {
        out.writeUInt64(SnapshotResponse.REMAINING_BYTES_FIELD_NUMBER, remaining);
      }
      out.writeTag(SnapshotResponse.BLOB_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      out.writeUInt32NoTag(blob);
    } catch (IOException e) {
      throw new IllegalStateException("a header larger than computed", e);
    }
    return message;
  }

  /** Where a message's blob starts: after its header. */
  static int blobStart(byte[] message, int blob) {
    return message.length - blob;
  }

  private static int headerSize(long remaining, int blob) {
    int remainingSize = remaining == 0 ? 0
        : CodedOutputStream.computeUInt64Size(SnapshotResponse.REMAINING_BYTES_FIELD_NUMBER, remaining);
    return remainingSize + CodedOutputStream.computeTagSize(SnapshotResponse.BLOB_FIELD_NUMBER)
        + CodedOutputStream.computeUInt32SizeNoTag(blob);
  }

  /** Cuts the image into messages, counting what remains, and hashes it for the last message. */
  private static final class Chunks extends OutputStream {
    private final SourceQueueWithComplete<EncodedMessage> queue;
    private final SavePacer pacer;
    private final MessageDigest sha = SnapshotFraming.sha256();
    private final ArrayDeque<CompletionStage<QueueOfferResult>> offered = new ArrayDeque<>();
    /** The message being filled (null between messages) and where its next image byte goes. */
    private byte[] message;
    private int filled;
    /** The image's bytes not yet given a message; -1 until the size is known. */
    private long remaining = -1;

    Chunks(SourceQueueWithComplete<EncodedMessage> queue, SavePacer pacer) {
      this.queue = queue;
      this.pacer = pacer;
    }

    void imageSize(long size) {
      remaining = size;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      sha.update(b, off, len);
      while (len > 0) {
        if (message == null) {
          startMessage();
        }
        int n = Math.min(len, message.length - filled);
        System.arraycopy(b, off, message, filled, n);
        filled += n;
        off += n;
        len -= n;
        if (filled == message.length) {
          offer(message);
          message = null;
        }
      }
    }

    /** The next message: the next CHUNK_BYTES of the image (or what is left), remaining counted after it. */
    private void startMessage() {
      if (remaining <= 0) {
        throw new IllegalStateException("snapshot image longer than announced");
      }
      int blob = (int) Math.min(CHUNK_BYTES, remaining);
      remaining -= blob;
      message = message(remaining, blob);
      filled = blobStart(message, blob);
    }

    /** Sends the hash after the last part of the image; the image must be whole. */
    void finish() throws IOException {
      if (message != null || remaining != 0) {
        long missing = remaining + (message == null ? 0 : message.length - filled);
        throw new IllegalStateException("snapshot image ended with " + missing + " bytes announced but not written");
      }
      byte[] digest = sha.digest();
      byte[] last = message(0, digest.length);
      System.arraycopy(digest, 0, last, blobStart(last, digest.length), digest.length);
      offer(last);
    }

    /**
     * Offers the message; with {@link #IN_FLIGHT} offers pending, first waits until the stream took
     * the oldest (backpressure from the client). The queue takes offers in order.
     */
    private void offer(byte[] bytes) throws IOException {
      pacer.send(bytes.length);
      if (offered.size() == IN_FLIGHT) {
        await(offered.removeFirst());
      }
      // The array is never written again once offered.
      offered.addLast(queue.offer(EncodedMessage.whole(ByteString.fromArrayUnsafe(bytes))));
    }

    /** Waits until the stream took every message offered. */
    void drain() throws IOException {
      while (!offered.isEmpty()) {
        await(offered.removeFirst());
      }
    }

    private static void await(CompletionStage<QueueOfferResult> offer) throws IOException {
      QueueOfferResult result;
      try {
        result = offer.toCompletableFuture().join();
      } catch (CompletionException e) {
        throw new ClientGone(String.valueOf(e.getCause()));
      }
      if (result != QueueOfferResult.enqueued()) {
        throw new ClientGone(result.toString());
      }
    }
  }
}
