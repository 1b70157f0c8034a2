package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small image from our writer, held in memory to be damaged page by page and saved: a "key"
 * bucket whose root is a branch over several leaves (300 pairs of 100-byte values), and "meta".
 */
public final class SnapshotImage {
  private final Path file;
  private byte[] image;
  private final long highWater;
  private final long keyRoot;

  private SnapshotImage(Path file) throws IOException {
    this.file = file;
    try (OutputStream out = Files.newOutputStream(file)) {
      BboltWriter.write(sink -> {
        sink.beginBucket(ByteString.copyFromUtf8("key"));
        for (int i = 0; i < 300; i++) {
          sink.put(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(i).array()), ByteString.copyFrom(new byte[100]));
        }
        sink.endBucket();
        sink.beginBucket(ByteString.copyFromUtf8("meta"));
        sink.put(ByteString.copyFromUtf8("consistent_index"), ByteString.copyFrom(new byte[8]));
        sink.endBucket();
      }, out);
    }
    image = Files.readAllBytes(file);
    try (BboltReader r = BboltReader.open(file)) {
      highWater = r.meta().highWater();
      ByteBuffer root = page(r.meta().root());
      int first = BboltFormat.PAGE_HEADER; // the root bucket's first element is "key"
      keyRoot = root.getLong(first + root.getInt(first + 4) + root.getInt(first + 8));
    }
    if (page(keyRoot).getShort(8) != BboltFormat.BRANCH) {
      throw new IllegalStateException("the key bucket needs a branch page");
    }
  }

  /** Writes the image to {@code file}. */
  public static SnapshotImage write(Path file) throws IOException {
    return new SnapshotImage(file);
  }

  /** Page {@code pgid} of the image in memory, little-endian, writable. */
  public ByteBuffer page(long pgid) {
    return ByteBuffer.wrap(image, (int) pgid * BboltFormat.PAGE_SIZE, BboltFormat.PAGE_SIZE).slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  public long highWater() {
    return highWater;
  }

  public long keyRoot() {
    return keyRoot;
  }

  /** The page the key bucket's root points to in its {@code element}-th entry. */
  public long keyLeaf(int element) {
    return page(keyRoot).getLong(BboltFormat.PAGE_HEADER + element * BboltFormat.ELEMENT + 8);
  }

  /** Points the key bucket root's {@code element}-th entry at {@code pgid}. */
  public void pointKeyEntry(int element, long pgid) {
    page(keyRoot).putLong(BboltFormat.PAGE_HEADER + element * BboltFormat.ELEMENT + 8, pgid);
  }

  /** Lists {@code ids} as the freelist page's free pages. */
  public void free(long... ids) {
    ByteBuffer freelist = page(BboltWriter.FREELIST_PGID).putShort(10, (short) ids.length);
    for (int i = 0; i < ids.length; i++) {
      freelist.putLong(BboltFormat.PAGE_HEADER + 8 * i, ids[i]);
    }
  }

  /** Writes the damaged image over the file; returns the file. */
  public Path save() throws IOException {
    Files.write(file, image);
    return file;
  }

  /** Forgets the damage done so far. */
  public void restore(byte[] copy) {
    image = copy.clone();
  }

  public byte[] copy() {
    return image.clone();
  }
}
