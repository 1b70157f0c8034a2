package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import io.akkaetcd.os.DirTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;

/**
 * A store being received from another member, row by row as an {@link StoreExport} reads
 * them, into a LevelDB of its own beside the store's directory. Once {@link #finish()}ed (synced
 * and closed) it can replace the store ({@link MvccStore#install}); abandoned, it is deleted.
 * Confined to one thread at a time.
 */
public final class IncomingStore implements AutoCloseable {
  private final Path dir;
  private DB db;

  private IncomingStore(Path dir, DB db) {
    this.dir = dir;
    this.db = db;
  }

  /** Starts receiving a store that is to replace the one in {@code storeDir}; drops any earlier one. */
  public static IncomingStore create(Path storeDir) {
    Path dir = StoreDirs.incoming(storeDir);
    try {
      DirTree.delete(dir);
      return new IncomingStore(dir, JniDBFactory.factory.open(dir.toFile(), new Options().createIfMissing(true)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
  }

  /** Writes rows as received (not synced yet). */
  public void write(List<ByteString> keys, List<ByteString> values) {
    if (keys.size() != values.size()) {
      throw new IllegalArgumentException(keys.size() + " keys but " + values.size() + " values");
    }
    try (WriteBatch b = db.createWriteBatch()) {
      for (int i = 0; i < keys.size(); i++) {
        b.put(keys.get(i).toByteArray(), values.get(i).toByteArray());
      }
      db.write(b, new WriteOptions().sync(false));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every row is here: record the snapshot's applied index as the one installed (so a restart can
   * tell an install from a journal that lost its tail), sync, close, and return the directory.
   */
  public Path finish() {
    try (WriteBatch b = db.createWriteBatch()) {
      byte[] applied = db.get(StoreLayout.META_APPLIED);
      b.put(StoreLayout.META_INSTALLED, applied != null ? applied : new byte[8]);
      db.write(b, new WriteOptions().sync(true));
      db.close();
      db = null;
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot finish " + dir, e);
    }
  }

  /** Deletes a finished store that will not be installed (the state machine caught up meanwhile). */
  public static void discard(Path finished) {
    try {
      DirTree.delete(finished);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + finished, e);
    }
  }

  /** Abandons an unfinished store (a finished one is left for its install); idempotent. */
  @Override
  public void close() {
    if (db == null) {
      return;
    }
    try {
      db.close();
      db = null;
      DirTree.delete(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
