package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a bbolt file: picks the valid meta (magic, version 2, FNV-1a-64 checksum) with the larger
 * txid, as bbolt's db.meta() does, then walks branch, leaf and overflow pages and inline buckets
 * in key order. Reads pages on demand (memory: one page path). Not thread-safe.
 */
public final class BboltReader implements Closeable {
  /** The meta in use. */
  public record Meta(int pageSize, long root, long freelist, long highWater, long txid) {}

  /** Receives a bucket's pairs in key order; {@code value} is null for a nested bucket. */
  @FunctionalInterface
  public interface Visitor {
    void pair(ByteString key, ByteString value) throws IOException;
  }

  private final FileChannel file;
  private final Meta meta;

  private BboltReader(FileChannel file, Meta meta) {
    this.file = file;
    this.meta = meta;
  }

  /**
   * Opens {@code path} read-only. As bbolt's Open, fails only if both metas are invalid, with
   * meta0's error: "invalid database" (short file or bad magic), "version mismatch", "checksum error".
   */
  public static BboltReader open(Path path) throws IOException {
    FileChannel file = FileChannel.open(path, StandardOpenOption.READ);
    try {
      if (file.size() < BboltFormat.PAGE_SIZE) {
        throw new IOException("invalid database");
      }
      MetaRead m0 = readMeta(file, 0);
      MetaRead m1 = readMeta(file, m0.meta() == null ? BboltFormat.PAGE_SIZE : m0.meta().pageSize());
      if (m0.meta() == null && m1.meta() == null) {
        throw new IOException(m0.error());
      }
      Meta chosen = m0.meta() == null ? m1.meta()
          : m1.meta() == null || m0.meta().txid() >= m1.meta().txid() ? m0.meta() : m1.meta();
      return new BboltReader(file, chosen);
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  public Meta meta() {
    return meta;
  }

  long fileSize() throws IOException {
    return file.size();
  }

  /** The top-level bucket names in order. */
  public List<ByteString> bucketNames() throws IOException {
    List<ByteString> names = new ArrayList<>();
    walk(meta.root(), (k, v) -> names.add(k), true);
    return names;
  }

  /** Visits the pairs of top-level bucket {@code name}; false if there is no such bucket. */
  public boolean forEach(ByteString name, Visitor visitor) throws IOException {
    ByteString[] header = new ByteString[1];
    walk(meta.root(), (k, v) -> {
      if (k.equals(name)) {
        header[0] = v;
      }
    }, true);
    if (header[0] == null) {
      return false;
    }
    long root = BboltFormat.le(header[0].toByteArray()).getLong(0);
    if (root == 0) { // an inline bucket: its only (leaf) page follows the header
      leaf(BboltFormat.le(header[0].substring(BboltFormat.BUCKET_HEADER).toByteArray()), visitor, false);
    } else {
      walk(root, visitor, false);
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    file.close();
  }

  /** In-order walk from page {@code pgid}; {@code bucketHeaders} passes sub-bucket values through. */
  private void walk(long pgid, Visitor visitor, boolean bucketHeaders) throws IOException {
    ByteBuffer page = page(pgid);
    int flags = page.getShort(8) & 0xffff;
    int count = page.getShort(10) & 0xffff;
    if ((flags & BboltFormat.LEAF) != 0) {
      leaf(page, visitor, bucketHeaders);
    } else if ((flags & BboltFormat.BRANCH) != 0) {
      for (int i = 0; i < count; i++) {
        walk(page.getLong(BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT + 8), visitor, bucketHeaders);
      }
    } else {
      throw new IOException("bbolt: page " + pgid + " has invalid type " + flags);
    }
  }

  private static void leaf(ByteBuffer page, Visitor visitor, boolean bucketHeaders) throws IOException {
    int count = page.getShort(10) & 0xffff;
    for (int i = 0; i < count; i++) {
      int at = BboltFormat.PAGE_HEADER + i * BboltFormat.ELEMENT;
      int flags = page.getInt(at);
      int pos = at + page.getInt(at + 4);
      int ksize = page.getInt(at + 8);
      int vsize = page.getInt(at + 12);
      ByteString key = bytes(page, pos, ksize);
      boolean nested = (flags & BboltFormat.BUCKET_LEAF) != 0;
      visitor.pair(key, nested && !bucketHeaders ? null : bytes(page, pos + ksize, vsize));
    }
  }

  private static ByteString bytes(ByteBuffer page, int at, int length) {
    return ByteString.copyFrom(page.duplicate().position(at).limit(at + length));
  }

  private ByteBuffer page(long pgid) throws IOException {
    if (pgid < 2 || pgid >= meta.highWater()) {
      throw new IOException("bbolt: page " + pgid + " out of bounds (high water " + meta.highWater() + ")");
    }
    return pageAt(pgid);
  }

  /** Page {@code pgid} with its overflow, unchecked against the high-water mark (for {@link BboltCheck}). */
  ByteBuffer pageAt(long pgid) throws IOException {
    long offset = pgid * meta.pageSize();
    ByteBuffer header = read(file, offset, BboltFormat.PAGE_HEADER);
    long pages = 1L + (header.getInt(12) & 0xffffffffL);
    return read(file, offset, Math.toIntExact(pages * meta.pageSize()));
  }

  /** A meta page read: the meta if valid, else bbolt's meta.validate() error. */
  private record MetaRead(Meta meta, String error) {}

  private static MetaRead readMeta(FileChannel file, long offset) throws IOException {
    if (file.size() < offset + BboltFormat.PAGE_HEADER + BboltFormat.META_CHECKED + 8) {
      return new MetaRead(null, "invalid database");
    }
    ByteBuffer b = read(file, offset + BboltFormat.PAGE_HEADER, BboltFormat.META_CHECKED + 8);
    if (b.getInt(0) != BboltFormat.MAGIC) {
      return new MetaRead(null, "invalid database");
    } else if (b.getInt(4) != BboltFormat.VERSION) {
      return new MetaRead(null, "version mismatch");
    } else if (b.getLong(BboltFormat.META_CHECKED) != BboltFormat.fnv1a64(b, 0, BboltFormat.META_CHECKED)) {
      return new MetaRead(null, "checksum error");
    }
    return new MetaRead(new Meta(b.getInt(8), b.getLong(16), b.getLong(32), b.getLong(40), b.getLong(48)), null);
  }

  private static ByteBuffer read(FileChannel file, long offset, int length) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining()) {
      if (file.read(b, offset + b.position()) < 0) {
        throw new IOException("bbolt: file ends before offset " + (offset + length));
      }
    }
    return b.flip();
  }
}
