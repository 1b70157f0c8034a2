package io.akkaetcd.bbolt;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.akkaetcd.proto.leasepb.Lease;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * etcd 3.4's backend layout (mvcc/kvstore.go, lease/lessor.go, etcdserver/api/membership/store.go)
 * as a {@link BboltSource}: all ten buckets etcd creates, even when empty, in bytewise name order.
 * "key": main (8 B BE) '_' sub (8 B BE) [+ 't' for a tombstone] → mvccpb.KeyValue; "meta":
 * consistent_index (8 B BE) and finished/scheduledCompactRev (a 17-byte revision key); "lease":
 * id (8 B BE) → leasepb.Lease{ID, TTL}. Big-endian keys with non-negative numbers sort as numbers.
 */
public final class EtcdBuckets implements BboltSource {
  public static final String KEY = "key";
  public static final String META = "meta";
  public static final String LEASE = "lease";
  /** The auth store's buckets (auth/store.go): enabled flag and revision, users, roles. */
  public static final List<String> AUTH = List.of("auth", "authUsers", "authRoles");
  public static final List<String> ALL = List.of(
      "alarm", "auth", "authRoles", "authUsers", "cluster", KEY, LEASE, "members", "members_removed", META);

  /** etcd's revision key: main (8 B) '_' sub (8 B); a tombstone's has a 't' after. */
  static final int REVISION_KEY_BYTES = 17;

  private static final ByteString CONSISTENT_INDEX = utf8("consistent_index");
  private static final ByteString FINISHED_COMPACT = utf8("finishedCompactRev");
  private static final ByteString SCHEDULED_COMPACT = utf8("scheduledCompactRev");

  private final EtcdExport export;
  private final List<EtcdExport.Row> extraRows;

  public EtcdBuckets(EtcdExport export) {
    this(export, List.of());
  }

  /** With {@code extraRows} of the small buckets besides the export's own (what the store does not hold). */
  public EtcdBuckets(EtcdExport export, List<EtcdExport.Row> extraRows) {
    this.export = export;
    this.extraRows = List.copyOf(extraRows);
  }

  @Override
  public void emit(Sink sink) throws IOException {
    emit(sink, false);
  }

  /** The "key" bucket as sizes (a revision key is 17 bytes, 18 with a tombstone's mark), the rest whole. */
  @Override
  public void emitSizes(Sink sink) throws IOException {
    emit(sink, true);
  }

  private void emit(Sink sink, boolean sizes) throws IOException {
    Map<String, Map<ByteString, ByteString>> small = smallBuckets();
    for (String bucket : ALL) {
      sink.beginBucket(utf8(bucket));
      switch (bucket) {
        case KEY -> {
          if (sizes) {
            export.revisionSizes((tombstone, valueSize) -> sink.putSizes(revisionKeySize(tombstone), valueSize));
          } else {
            export.revisions(r -> sink.put(revisionKey(r.main(), r.sub(), r.tombstone()), r.value()));
          }
        }
        case LEASE -> export.leases(l -> sink.put(be64(l.id()),
            Lease.newBuilder().setID(l.id()).setTTL(l.ttl()).build().toByteString()));
        default -> {
          for (Map.Entry<ByteString, ByteString> row : small.getOrDefault(bucket, Map.of()).entrySet()) {
            sink.put(row.getKey(), row.getValue());
          }
        }
      }
      sink.endBucket();
    }
  }

  /**
   * Reads an etcd-layout bbolt file into {@code into} (etcd's mvcc restore and lessor recovery):
   * the "key", "lease", "alarm", auth and "meta" buckets; membership is the restorer's to make afresh.
   */
  public static void read(BboltReader reader, EtcdImport into) throws IOException {
    if (!reader.forEach(utf8(KEY), (k, v) -> into.revision(revision(k, v)))) {
      throw new IOException("not an etcd snapshot: no \"key\" bucket");
    }
    reader.forEach(utf8(LEASE), (k, v) -> {
      Lease lease = Lease.parseFrom(v);
      into.lease(new EtcdExport.Lease(lease.getID(), lease.getTTL()));
    });
    reader.forEach(utf8("alarm"), (k, v) -> into.alarm(k));
    for (String bucket : AUTH) {
      reader.forEach(utf8(bucket), (k, v) -> into.bucketRow(bucket, k, v));
    }
    long[] compacted = {0, 0};
    reader.forEach(utf8(META), (k, v) -> {
      if (k.equals(FINISHED_COMPACT)) {
        compacted[0] = mainOf(v);
      } else if (k.equals(SCHEDULED_COMPACT)) {
        compacted[1] = mainOf(v);
      }
    });
    into.compaction(compacted[0], compacted[1]);
  }

  private static EtcdExport.Revision revision(ByteString key, ByteString value) throws IOException {
    if (key.size() != REVISION_KEY_BYTES
        && !(key.size() == REVISION_KEY_BYTES + 1 && key.byteAt(REVISION_KEY_BYTES) == 't')) {
      throw new IOException("not an etcd revision key: " + key.size() + " bytes");
    }
    ByteBuffer b = key.asReadOnlyByteBuffer();
    return new EtcdExport.Revision(b.getLong(0), b.getLong(9), key.size() == REVISION_KEY_BYTES + 1, value);
  }

  private static long mainOf(ByteString revisionKey) throws IOException {
    if (revisionKey.size() < 8) {
      throw new IOException("not an etcd revision: " + revisionKey.size() + " bytes");
    }
    return revisionKey.asReadOnlyByteBuffer().getLong(0);
  }

  private static int revisionKeySize(boolean tombstone) {
    return tombstone ? REVISION_KEY_BYTES + 1 : REVISION_KEY_BYTES;
  }

  /** etcd's revision key (mvcc/revision.go revToBytes, plus the tombstone mark). */
  public static ByteString revisionKey(long main, long sub, boolean tombstone) {
    byte[] key = new byte[revisionKeySize(tombstone)];
    ByteBuffer.wrap(key).putLong(main).put((byte) '_').putLong(sub);
    if (tombstone) {
      key[REVISION_KEY_BYTES] = 't';
    }
    return UnsafeByteOperations.unsafeWrap(key); // the array is never written again
  }

  public static ByteString be64(long n) {
    return ByteString.copyFrom(ByteBuffer.allocate(8).putLong(n).array());
  }

  private Map<String, Map<ByteString, ByteString>> smallBuckets() throws IOException {
    Map<String, Map<ByteString, ByteString>> buckets = new TreeMap<>();
    List<EtcdExport.Row> rows = new ArrayList<>(export.rows());
    rows.addAll(extraRows);
    rows.add(new EtcdExport.Row(META, CONSISTENT_INDEX, be64(export.consistentIndex())));
    if (export.finishedCompactRevision() > 0) {
      rows.add(new EtcdExport.Row(META, FINISHED_COMPACT, revisionKey(export.finishedCompactRevision(), 0, false)));
    }
    if (export.scheduledCompactRevision() > 0) {
      rows.add(new EtcdExport.Row(META, SCHEDULED_COMPACT, revisionKey(export.scheduledCompactRevision(), 0, false)));
    }
    for (EtcdExport.Row row : rows) {
      if (!ALL.contains(row.bucket()) || row.bucket().equals(KEY) || row.bucket().equals(LEASE)) {
        throw new IllegalArgumentException("not a small etcd bucket: " + row.bucket());
      }
      buckets.computeIfAbsent(row.bucket(), b -> new TreeMap<>(ByteString.unsignedLexicographicalComparator()))
          .put(row.key(), row.value());
    }
    return buckets;
  }

  private static ByteString utf8(String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }
}
