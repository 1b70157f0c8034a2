package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import io.akkaetcd.bbolt.EtcdExport;
import io.akkaetcd.bbolt.EtcdImport;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;

/**
 * A new store written from an etcd snapshot (snapshot restore): the same revisions, leases, alarms, auth
 * and compaction, as rows of {@link StoreLayout}, in batches of about {@value #BATCH_BYTES} bytes.
 * The store revision is the last revision's main, or the compaction's if that is later (etcd's
 * kvstore restore). The store stands at a snapshot point (index {@value #RESTORED_INDEX}, term
 * {@value #RESTORED_TERM}): the member that opens it starts a new Raft log after that point, as
 * etcd's restore starts a new WAL after a snapshot. Confined to one thread.
 */
public final class StoreImport implements EtcdImport, AutoCloseable {
  static final long BATCH_BYTES = 4 << 20;
  /** The Raft index a restored store stands at: the snapshot point its new log starts after. */
  public static final long RESTORED_INDEX = 1;
  /** The Raft term of that snapshot point. */
  public static final long RESTORED_TERM = 1;

  private final DB db;
  private WriteBatch batch;
  private long batchBytes;
  private long lastMain;
  private long revisions;
  private long revision;

  private StoreImport(DB db) {
    this.db = db;
    this.batch = db.createWriteBatch();
  }

  /** Creates the store in {@code dir}, which must not exist yet. */
  public static StoreImport create(Path dir) throws IOException {
    if (Files.exists(dir)) {
      throw new IOException("the MVCC store " + dir + " exists");
    }
    Files.createDirectories(dir.getParent());
    return new StoreImport(JniDBFactory.factory.open(dir.toFile(), new Options().createIfMissing(true)));
  }

  @Override
  public void revision(EtcdExport.Revision r) throws IOException {
    byte[] value = r.tombstone()
        // as ApplyBatch stores a delete: the key and the revision that deleted it
        ? KeyValue.newBuilder().setKey(r.keyValue().getKey()).setModRevision(r.main()).build().toByteArray()
        : r.value().toByteArray();
    put(StoreLayout.revKey(new Revision(r.main(), r.sub()), r.tombstone()), value);
    lastMain = r.main();
    revisions++;
  }

  @Override
  public void lease(EtcdExport.Lease lease) throws IOException {
    put(StoreLayout.leaseKey(lease.id()), StoreLayout.longBytes(lease.ttl()));
  }

  @Override
  public void alarm(ByteString member) throws IOException {
    put(StoreLayout.alarmKey(member.toByteArray()), new byte[0]);
  }

  /** Writes the metas and syncs: the store is complete. */
  @Override
  public void bucketRow(String bucket, ByteString key, ByteString value) throws IOException {
    put(StoreLayout.bucketKey(bucket, key.toByteArray()), value.toByteArray());
  }

  @Override
  public void compaction(long finished, long scheduled) throws IOException {
    revision = Math.max(1, Math.max(lastMain, Math.max(finished, scheduled)));
    put(StoreLayout.META_REVISION, StoreLayout.longBytes(revision));
    put(StoreLayout.META_COMPACT_FINISHED, StoreLayout.longBytes(finished));
    put(StoreLayout.META_COMPACT_SCHEDULED, StoreLayout.longBytes(scheduled));
    // As if installed from a leader's snapshot at index 1, term 1 (etcd's restore starts its WAL
    // after a snapshot): the member's new log starts after it, so a member added later is sent a
    // snapshot of this data, not a log that never held it.
    put(StoreLayout.META_APPLIED, StoreLayout.longBytes(RESTORED_INDEX));
    put(StoreLayout.META_APPLIED_TERM, StoreLayout.longBytes(RESTORED_TERM));
    put(StoreLayout.META_INSTALLED, StoreLayout.longBytes(RESTORED_INDEX));
    db.write(batch, new WriteOptions().sync(true));
    batch.close();
    batch = db.createWriteBatch();
    batchBytes = 0;
  }

  /** The store revision, once {@link #compaction} wrote it. */
  public long revision() {
    return revision;
  }

  /** Revision rows written. */
  public long revisions() {
    return revisions;
  }

  @Override
  public void close() throws IOException {
    batch.close();
    db.close();
  }

  private void put(byte[] key, byte[] value) throws IOException {
    batch.put(key, value);
    batchBytes += key.length + value.length;
    if (batchBytes >= BATCH_BYTES) {
      db.write(batch, new WriteOptions().sync(false));
      batch.close();
      batch = db.createWriteBatch();
      batchBytes = 0;
    }
  }
}
