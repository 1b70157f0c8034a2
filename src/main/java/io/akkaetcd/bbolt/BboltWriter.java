package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * Writes a bbolt database image (page size 4096) in one front-to-back stream, as bbolt's
 * tx.WriteTo lays one out: meta pages 0 and 1 (txid and txid−1), an empty freelist at page 2, then
 * every bucket's tree with children before parents and the root bucket's leaf last. Buckets are
 * always regular pages (never inline); pages are packed full. The image is what bbolt's reader and
 * {@code tx.Check()} accept: every page below the high-water mark is reachable exactly once.
 *
 * <p>The metas come first but name the root page and the high-water mark, so the source is emitted
 * twice: a layout pass that only counts pages (from sizes, {@link BboltSource#emitSizes}), then the
 * write. Memory is O(tree depth × page size) per pass (one open page per level of the current
 * bucket and of the root bucket), never the image.
 */
public final class BboltWriter {
  static final long FREELIST_PGID = 2;
  static final long FIRST_DATA_PGID = 3;
  /** meta0's txid; meta1 gets txid − 1, as tx.WriteTo does. */
  static final long TXID = 2;

  private BboltWriter() {}

  /** Writes the image of {@code source} to {@code out} and returns its size in bytes. */
  public static long write(BboltSource source, OutputStream out) throws IOException {
    return write(source, out, size -> { });
  }

  /**
   * As {@link #write(BboltSource, OutputStream)}, telling {@code imageSize} the image's size
   * before the first byte is written (etcd's snapshot stream announces the bytes remaining).
   */
  public static long write(BboltSource source, OutputStream out, LongConsumer imageSize) throws IOException {
    Layout layout = pass(source, null);
    imageSize.accept(layout.highWater * BboltFormat.PAGE_SIZE);
    out.write(BboltFormat.metaPage(0, layout.root, FREELIST_PGID, layout.highWater, TXID));
    out.write(BboltFormat.metaPage(1, layout.root, FREELIST_PGID, layout.highWater, TXID - 1));
    out.write(BboltFormat.emptyFreelistPage(FREELIST_PGID));
    Layout written = pass(source, out);
    if (!written.equals(layout)) {
      throw new IllegalStateException("bbolt source emitted different content in its two passes");
    }
    return layout.highWater * BboltFormat.PAGE_SIZE;
  }

  private record Layout(long root, long highWater) {}

  private static Layout pass(BboltSource source, OutputStream out) throws IOException {
    PageOut pages = new PageOut(out, FIRST_DATA_PGID);
    OrderedSink sink = new OrderedSink(pages);
    if (pages.counting()) {
      source.emitSizes(sink);
    } else {
      source.emit(sink);
    }
    long root = sink.finish();
    return new Layout(root, pages.nextPgid());
  }

  /** Checks bbolt's order while feeding one tree per bucket and the root bucket's tree. */
  private static final class OrderedSink implements BboltSource.Sink {
    private final PageOut pages;
    private final TreeBuilder rootBucket;
    private final KeyOrder bucketNames = new KeyOrder("bucket name");
    private TreeBuilder bucket;
    private ByteString bucketName;
    private final KeyOrder keys = new KeyOrder("key");

    OrderedSink(PageOut pages) {
      this.pages = pages;
      this.rootBucket = new TreeBuilder(pages);
    }

    @Override
    public void beginBucket(ByteString name) {
      if (bucket != null) {
        throw new IllegalStateException("bucket " + bucketName.toStringUtf8() + " not ended");
      }
      bucketNames.requireAfterLast(name);
      bucket = new TreeBuilder(pages);
      bucketName = name;
      keys.reset();
    }

    @Override
    public void put(ByteString key, ByteString value) throws IOException {
      if (bucket == null) {
        throw new IllegalStateException("put outside a bucket");
      }
      if (!pages.counting()) { // the write pass checks every key before any of its pages is sent
        keys.requireAfterLast(key);
      }
      bucket.add(key, value, 0);
    }

    @Override
    public void putSizes(int keySize, int valueSize) throws IOException {
      if (bucket == null) {
        throw new IllegalStateException("put outside a bucket");
      }
      bucket.addSizes(keySize, valueSize);
    }

    @Override
    public void endBucket() throws IOException {
      if (bucket == null) {
        throw new IllegalStateException("no bucket to end");
      }
      long root = bucket.finish();
      rootBucket.add(bucketName, UnsafeByteOperations.unsafeWrap(BboltFormat.bucketHeader(root)),
          BboltFormat.BUCKET_LEAF);
      bucket = null;
    }

    long finish() throws IOException {
      if (bucket != null) {
        throw new IllegalStateException("bucket " + bucketName.toStringUtf8() + " not ended");
      }
      return rootBucket.finish();
    }
  }

  /**
   * Keys (or bucket names) strictly ascending bytewise, as bbolt orders them: the last one is kept
   * as bytes and compared with Arrays.compareUnsigned (ByteString's comparator walks byte by byte
   * and was a third of a snapshot save's writer CPU).
   */
  static final class KeyOrder {
    private final String what;
    private byte[] last = new byte[64];
    private byte[] next = new byte[64];
    private int lastLength = -1;

    KeyOrder(String what) {
      this.what = what;
    }

    void reset() {
      lastLength = -1;
    }

    void requireAfterLast(ByteString key) {
      int n = key.size();
      if (n == 0) {
        throw new IllegalArgumentException("empty " + what);
      }
      if (next.length < n) {
        next = new byte[Math.max(n, 2 * next.length)];
      }
      key.copyTo(next, 0);
      if (lastLength >= 0 && Arrays.compareUnsigned(last, 0, lastLength, next, 0, n) >= 0) {
        throw new IllegalArgumentException(what + "s out of bytewise order or repeated");
      }
      byte[] swap = last;
      last = next;
      next = swap;
      lastLength = n;
    }
  }
}
