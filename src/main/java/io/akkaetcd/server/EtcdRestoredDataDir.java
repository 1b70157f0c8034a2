package io.akkaetcd.server;

import io.akkaetcd.bbolt.BboltReader;
import io.akkaetcd.bbolt.EtcdBuckets;
import io.akkaetcd.mvcc.StoreImport;
import io.akkaetcd.os.DirTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data directory that etcd's {@code etcdctl snapshot restore} wrote (its bbolt file
 * {@code member/snap/db} and a WAL in {@code member/wal}), taken over on the member's first start:
 * the store is imported from the bbolt file as {@code akka-etcd snapshot restore} imports a
 * snapshot, and the member then starts a new Raft log with the membership its flags give, as etcd
 * starts on the restored WAL. etcd's files are kept in {@code member/etcd-restored}.
 *
 * <p>Each step leaves a directory this class finishes on the next start: the store is written
 * under another name and renamed into place last, so a member never opens half an import.
 */
final class EtcdRestoredDataDir {
  private static final Logger log = LoggerFactory.getLogger(EtcdRestoredDataDir.class);

  private EtcdRestoredDataDir() {}

  /** Imports etcd's restored files in {@code memberDir} when they are there and not imported yet. */
  static void adoptIfPresent(Path memberDir) {
    Path store = memberDir.resolve("mvcc");
    Path kept = memberDir.resolve("etcd-restored");
    Path db = Files.exists(memberDir.resolve("snap").resolve("db")) ? memberDir.resolve("snap").resolve("db")
        : kept.resolve("snap").resolve("db");
    if (Files.exists(store) || !Files.exists(db) || !(hasEtcdWal(memberDir.resolve("wal")) || Files.exists(kept))) {
      return;
    }
    Path importing = memberDir.resolve("mvcc.importing");
    try {
      DirTree.delete(importing);
      long started = System.nanoTime();
      long revisions;
      try (BboltReader reader = BboltReader.open(db); StoreImport into = StoreImport.create(importing)) {
        EtcdBuckets.read(reader, into);
        revisions = into.revisions();
      }
      Files.createDirectories(kept);
      for (String dir : new String[] {"wal", "snap"}) {
        if (Files.exists(memberDir.resolve(dir))) {
          Files.move(memberDir.resolve(dir), kept.resolve(dir), StandardCopyOption.ATOMIC_MOVE);
        }
      }
      Files.move(importing, store, StandardCopyOption.ATOMIC_MOVE);
      log.info("imported {} revisions from the data directory etcdctl snapshot restore wrote ({} ms); "
          + "etcd's files are kept in {}", revisions, (System.nanoTime() - started) / 1_000_000, kept);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot import etcd's restored data directory " + memberDir.getParent(), e);
    }
  }

  /** Whether {@code walDir} holds etcd's WAL segments ({@code <seq>-<index>.wal}), not a LevelDB journal. */
  private static boolean hasEtcdWal(Path walDir) {
    if (!Files.isDirectory(walDir)) {
      return false;
    }
    try (Stream<Path> files = Files.list(walDir)) {
      return files.anyMatch(f -> f.getFileName().toString().endsWith(".wal"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
