package io.akkaetcd.bbolt;

import java.io.IOException;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * etcd's snapshot file framing: the bbolt image followed by its sha256 (32 bytes). An image is a
 * whole number of 4096-byte pages, so the framed size is 32 mod 512, which is how etcdctl's save
 * and restore tell a hash is present (clientv3/snapshot/v3_snapshot.go).
 */
public final class SnapshotFraming {
  public static final int HASH_SIZE = 32;

  private SnapshotFraming() {}

  /** Writes the image of {@code source} then its sha256; returns the total size. */
  public static long writeWithHash(BboltSource source, OutputStream out) throws IOException {
    MessageDigest sha = sha256();
    long size = BboltWriter.write(source, new DigestOutputStream(out, sha));
    out.write(sha.digest());
    return size + HASH_SIZE;
  }

  /** True when a file of {@code size} bytes carries etcd's trailing hash. */
  public static boolean hasHash(long size) {
    return size % 512 == HASH_SIZE;
  }

  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
