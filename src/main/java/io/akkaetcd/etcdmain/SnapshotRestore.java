package io.akkaetcd.etcdmain;

import io.akkaetcd.bbolt.BboltReader;
import io.akkaetcd.bbolt.EtcdBuckets;
import io.akkaetcd.bbolt.SnapshotFraming;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberIdentity;
import io.akkaetcd.mvcc.StoreImport;
import io.akkaetcd.os.DirTree;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Makes a new data directory from an etcd snapshot file (etcd's clientv3/snapshot Restore): checks
 * the sha256 the file ends with, writes the key-value store with the snapshot's revisions, leases,
 * alarms and compaction, and records the member's identity from the restore flags, so the member
 * started on it bootstraps the membership the flags give (a new Raft log) over the restored data.
 * A directory it could not finish is removed.
 */
final class SnapshotRestore {
  /** What a restore failed on, in etcdctl's words. */
  static final class RestoreException extends Exception {
    RestoreException(String message) {
      super(message);
    }
  }

  /** What was restored. */
  record Restored(long revisions, long revision) {}

  private SnapshotRestore() {}

  static Restored restore(Path snapshot, Path dataDir, ClusterMembers members, boolean skipHashCheck)
      throws IOException, RestoreException {
    if (Files.exists(dataDir)) {
      throw new RestoreException("data-dir \"" + dataDir + "\" exists");
    }
    long size = Files.size(snapshot);
    boolean hashed = SnapshotFraming.hasHash(size);
    if (!hashed && !skipHashCheck) {
      throw new RestoreException("snapshot missing hash but --skip-hash-check=false");
    }
    if (hashed && !skipHashCheck) {
      checkHash(snapshot, size);
    }
    Path memberDir = dataDir.resolve("member");
    try {
      Restored restored;
      try (BboltReader reader = BboltReader.open(snapshot);
           StoreImport store = StoreImport.create(memberDir.resolve("mvcc"))) {
        EtcdBuckets.read(reader, store);
        restored = new Restored(store.revisions(), store.revision());
      }
      MemberIdentity.loadOrRecord(memberDir, members);
      return restored;
    } catch (IOException | RuntimeException e) {
      DirTree.delete(dataDir);
      throw e;
    }
  }

  /** etcd's check: the sha256 of everything before the last 32 bytes is those bytes. */
  private static void checkHash(Path snapshot, long size) throws IOException, RestoreException {
    MessageDigest sha = SnapshotFraming.sha256();
    byte[] expected = new byte[SnapshotFraming.HASH_SIZE];
    try (InputStream in = Files.newInputStream(snapshot)) {
      byte[] buffer = new byte[1 << 16];
      long left = size - SnapshotFraming.HASH_SIZE;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          throw new IOException("snapshot ends early");
        }
        sha.update(buffer, 0, n);
        left -= n;
      }
      if (in.readNBytes(expected, 0, expected.length) != expected.length) {
        throw new IOException("snapshot ends early");
      }
    }
    byte[] got = sha.digest();
    if (!Arrays.equals(expected, got)) {
      throw new RestoreException("expected sha256 " + goBytes(expected) + ", got " + goBytes(got));
    }
  }

  /** Go's %v of a []byte: the bytes in decimal, space-separated, in brackets. */
  private static String goBytes(byte[] b) {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < b.length; i++) {
      s.append(i == 0 ? "" : " ").append(b[i] & 0xff);
    }
    return s.append(']').toString();
  }
}
