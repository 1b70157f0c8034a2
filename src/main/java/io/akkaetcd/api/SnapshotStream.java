package io.akkaetcd.api;

import akka.NotUsed;
import akka.stream.OverflowStrategy;
import akka.stream.QueueOfferResult;
import akka.stream.javadsl.Source;
import akka.stream.javadsl.SourceQueueWithComplete;
import com.google.protobuf.ByteString;
import io.akkaetcd.bbolt.BboltWriter;
import io.akkaetcd.bbolt.EtcdBuckets;
import io.akkaetcd.bbolt.EtcdExport;
import io.akkaetcd.bbolt.SnapshotFraming;
import io.akkaetcd.mvcc.KvStore;
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
   * {@code clusterRows} for the buckets the store does not hold.
   */
  static Source<SnapshotResponse, NotUsed> of(Supplier<KvStore.Backup> open, List<EtcdExport.Row> clusterRows,
      String member) {
    return Source.<SnapshotResponse>queue(IN_FLIGHT, OverflowStrategy.backpressure(), IN_FLIGHT)
        .mapMaterializedValue(queue -> {
          Thread writer = new Thread(() -> send(open, clusterRows, queue, member), "snapshot-save");
          writer.setDaemon(true);
          writer.start();
          return NotUsed.getInstance();
        });
  }

  private static void send(Supplier<KvStore.Backup> open, List<EtcdExport.Row> clusterRows,
      SourceQueueWithComplete<SnapshotResponse> queue, String member) {
    long started = System.nanoTime();
    try (KvStore.Backup backup = open.get()) {
      Chunks chunks = new Chunks(queue);
      log.info("{} sending database snapshot to client", member);
      long size = BboltWriter.write(new EtcdBuckets(backup, clusterRows), chunks, chunks::imageSize);
      chunks.finish();
      chunks.drain();
      log.info("{} sent database snapshot to client [{} bytes in {} ms]", member, size,
          (System.nanoTime() - started) / 1_000_000);
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

  /** Cuts the image into messages, counting what remains, and hashes it for the last message. */
  private static final class Chunks extends OutputStream {
    private final SourceQueueWithComplete<SnapshotResponse> queue;
    private final MessageDigest sha = SnapshotFraming.sha256();
    private final ArrayDeque<CompletionStage<QueueOfferResult>> offered = new ArrayDeque<>();
    private byte[] buffer = new byte[CHUNK_BYTES];
    private int filled;
    private long remaining = -1;

    Chunks(SourceQueueWithComplete<SnapshotResponse> queue) {
      this.queue = queue;
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
        int n = Math.min(len, CHUNK_BYTES - filled);
        System.arraycopy(b, off, buffer, filled, n);
        filled += n;
        off += n;
        len -= n;
        if (filled == CHUNK_BYTES) {
          flushChunk();
        }
      }
    }

    /** Sends the last part of the image, then the hash; the image must be whole. */
    void finish() throws IOException {
      if (filled > 0) {
        flushChunk();
      }
      if (remaining != 0) {
        throw new IllegalStateException("snapshot image ended with " + remaining + " bytes announced but not written");
      }
      offer(SnapshotResponse.newBuilder().setRemainingBytes(0).setBlob(ByteString.copyFrom(sha.digest())).build());
    }

    private void flushChunk() throws IOException {
      remaining -= filled;
      if (remaining < 0) {
        throw new IllegalStateException("snapshot image longer than announced");
      }
      offer(SnapshotResponse.newBuilder().setRemainingBytes(remaining)
          .setBlob(ByteString.copyFrom(buffer, 0, filled)).build());
      filled = 0;
    }

    /**
     * Offers the message; with {@link #IN_FLIGHT} offers pending, first waits until the stream took
     * the oldest (backpressure from the client). The queue takes offers in order.
     */
    private void offer(SnapshotResponse message) throws IOException {
      if (offered.size() == IN_FLIGHT) {
        await(offered.removeFirst());
      }
      offered.addLast(queue.offer(message));
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
