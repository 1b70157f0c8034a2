package io.akkaetcd.mvcc;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.StartupException;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.ReadOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LevelDB under the store (etcd's backend): the handle, the lock that keeps it open under
 * readers, scans over its rows (laid out as {@link StoreLayout} says) and its size.
 *
 * <p>Readers on other threads may still be inside LevelDB when the store closes or is replaced;
 * closing LevelDB under a running get or a live iterator or snapshot would crash the JVM. So every
 * read holds the lifecycle lock's read side ({@link #guarded}; uncontended but for close and
 * install; never nested), and only {@link #close} and {@link #replace} take the write side, after
 * releasing every {@link Pinned} resource (an export's iterator and snapshot).
 *
 * <p>The handle is replaced only by {@link #replace} (the applier, installing a snapshot). Reads
 * come from any thread; writes from the applier and the compactor.
 */
final class Backend {
  private static final Logger log = LoggerFactory.getLogger(Backend.class);
  /**
   * LevelDB's file sizes are listed at most this often (a system call per file); its text log
   * holds no data and is not counted.
   */
  private static final long DB_SIZE_REFRESH_NANOS = 100_000_000L;
  private static final Set<String> INFO_LOGS = Set.of("LOG", "LOG.old");

  /** Something that pins LevelDB (an iterator, a snapshot) and is released before it closes. */
  interface Pinned {
    /** Frees what it holds; idempotent; called under the lifecycle lock (either side). */
    void release();
  }

  private final Path dir;
  private volatile DB db;
  private final StampedLock lifecycle = new StampedLock();
  private boolean closed; // guarded by lifecycle
  private final Set<Pinned> pinned = ConcurrentHashMap.newKeySet();
  /**
   * Bytes of the revision rows held (keys and values as written): what the store reports as in
   * use and what the backend quota counts. Set by the scan at open, raised by the applier's
   * writes, lowered by the compactor as it deletes.
   */
  private final AtomicLong rowBytes = new AtomicLong();
  private volatile long dbSize = -1;
  private volatile long dbSizeAt;

  private Backend(Path dir, DB db) {
    this.dir = dir;
    this.db = db;
  }

  /** Opens (creating) the LevelDB in {@code dir}. */
  static Backend open(Path dir) {
    try {
      return new Backend(dir, openLevelDb(dir));
    } catch (IOException e) {
      throw StartupException.unopenable(dir, "the MVCC store", e);
    }
  }

  private static DB openLevelDb(Path dir) throws IOException {
    return JniDBFactory.factory.open(dir.toFile(), new Options().createIfMissing(true).cacheSize(64L << 20));
  }

  Path dir() {
    return dir;
  }

  /** The current handle: stable while a {@link #guarded} read runs, and on the applier thread. */
  DB db() {
    return db;
  }

  /** Runs {@code read} with LevelDB held open; STOPPED once the store is closed. */
  <T> T guarded(Supplier<T> read) {
    long stamp = lifecycle.readLock();
    try {
      if (closed) {
        throw EtcdError.STOPPED.exception();
      }
      return read.get();
    } finally {
      lifecycle.unlockRead(stamp);
    }
  }

  /** Runs {@code action} under the read side, open or closed (releasing a pinned resource). */
  void underReadLock(Runnable action) {
    long stamp = lifecycle.readLock();
    try {
      action.run();
    } finally {
      lifecycle.unlockRead(stamp);
    }
  }

  void pin(Pinned p) {
    pinned.add(p);
  }

  void unpin(Pinned p) {
    pinned.remove(p);
  }

  /**
   * Closes LevelDB, puts the store in {@code incoming} in its place ({@link StoreDirs}), opens
   * it and runs {@code reload} before any reader gets in again. Applier thread.
   */
  void replace(Path incoming, Runnable reload) {
    long stamp = lifecycle.writeLock();
    try {
      if (closed) {
        throw EtcdError.STOPPED.exception();
      }
      List.copyOf(pinned).forEach(Pinned::release);
      db.close();
      StoreDirs.replace(dir, incoming);
      db = openLevelDb(dir);
      reload.run();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot replace the MVCC store in " + dir, e);
    } finally {
      lifecycle.unlockWrite(stamp);
    }
  }

  /** Releases what is pinned and closes LevelDB; later reads answer STOPPED. */
  void close() {
    long stamp = lifecycle.writeLock();
    try {
      closed = true;
      List.copyOf(pinned).forEach(Pinned::release);
      db.close();
    } catch (IOException e) {
      log.warn("closing LevelDB failed", e);
    } finally {
      lifecycle.unlockWrite(stamp);
    }
  }

  /** An 8-byte meta value ({@link StoreLayout}), 0 if absent. */
  long meta(byte[] key) {
    return StoreLayout.longOf(db.get(key));
  }

  /**
   * Visits, in revision order, every stored revision row whose main revision is in [fromMain, toMain].
   * Read through a {@link RowCursor}: each row's key and value are copied out of LevelDB once.
   */
  void scanRevisions(ReadOptions options, long fromMain, long toMain, BiConsumer<byte[], byte[]> visitor) {
    try (RowCursor rows = new RowCursor(db, options)) {
      for (rows.seek(StoreLayout.revKey(new Revision(fromMain, 0), false)); rows.valid(); rows.next()) {
        byte[] k = rows.key();
        if (k[0] != StoreLayout.REV || Revision.fromBytes(k, 1).main() > toMain) {
          return;
        }
        visitor.accept(k, rows.value());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Visits every row whose key starts with {@code prefix}, in key order. */
  void scanPrefix(byte prefix, BiConsumer<byte[], byte[]> visitor) {
    try (RowCursor rows = new RowCursor(db, new ReadOptions())) {
      for (rows.seek(new byte[] {prefix}); rows.valid(); rows.next()) {
        byte[] k = rows.key();
        if (k[0] != prefix) {
          break;
        }
        visitor.accept(k, rows.value());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** See {@link #rowBytes}. */
  AtomicLong rowBytes() {
    return rowBytes;
  }

  /** The size of LevelDB's files (tables, write-ahead log, manifest), at most 100 ms old. */
  long dbSize() {
    long now = System.nanoTime();
    if (dbSize < 0 || now - dbSizeAt > DB_SIZE_REFRESH_NANOS) {
      try (Stream<Path> files = Files.list(dir)) {
        dbSize = files.filter(f -> !INFO_LOGS.contains(f.getFileName().toString()))
            .map(Path::toFile).filter(File::isFile).mapToLong(File::length).sum();
      } catch (IOException e) {
        dbSize = 0;
      }
      dbSizeAt = now;
    }
    return dbSize;
  }

  /** Compacts every level over the whole key space, so the files shrink to the rows still held. */
  void compactFiles() {
    guarded(() -> {
      db.compactRange(new byte[] {0}, new byte[] {(byte) 0xff});
      return null;
    });
    dbSize = -1; // measured afresh on the next call
  }

  static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      log.warn("closing a LevelDB resource failed", e);
    }
  }
}
