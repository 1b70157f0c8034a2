package io.akkaetcd.apply;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A small in-memory {@link KvStore} for unit tests: full history per key, readers see only
 * committed batches, one write txn at a time. Not thread-safe beyond what the tests need.
 */
final class InMemoryKvStore implements KvStore {
  private static final ByteString GTE = ByteString.copyFrom(new byte[] {0});

  /** One revision of a key; {@code kv == null} is a tombstone. */
  private record Rev(long main, KeyValue kv) {}

  private final NavigableMap<ByteString, List<Rev>> history =
      new TreeMap<>(ByteString.unsignedLexicographicalComparator());
  private long latestRev = 1;
  private long committedRev = 1;
  private long compactRev = 0;
  private long pendingIndex;
  private long appliedIndex;
  private long appliedTerm;
  private boolean txnOpen;

  @Override
  public synchronized long currentRevision() {
    return committedRev;
  }

  @Override
  public synchronized long compactRevision() {
    return compactRev;
  }

  @Override
  public synchronized long appliedIndex() {
    return appliedIndex;
  }

  @Override
  public synchronized RangeResult range(ByteString key, ByteString rangeEnd, long rev, long limit,
      boolean countOnly) {
    if (rev > committedRev) {
      throw EtcdError.FUTURE_REV.exception();
    }
    if (rev > 0 && rev < compactRev) {
      throw EtcdError.COMPACTED.exception();
    }
    return rangeAt(key, rangeEnd, rev <= 0 ? committedRev : rev, limit, countOnly);
  }

  private RangeResult rangeAt(ByteString key, ByteString end, long rev, long limit,
      boolean countOnly) {
    List<KeyValue> kvs = new ArrayList<>();
    long count = 0;
    for (Map.Entry<ByteString, List<Rev>> e : keys(key, end).entrySet()) {
      KeyValue kv = at(e.getValue(), rev);
      if (kv == null) {
        continue;
      }
      count++;
      if (!countOnly && (limit <= 0 || kvs.size() < limit)) {
        kvs.add(kv);
      }
    }
    return new RangeResult(kvs, count, committedRev);
  }

  private NavigableMap<ByteString, List<Rev>> keys(ByteString key, ByteString end) {
    if (end.isEmpty()) {
      return history.subMap(key, true, key, true);
    }
    if (end.equals(GTE)) {
      return history.tailMap(key, true);
    }
    if (ByteString.unsignedLexicographicalComparator().compare(key, end) >= 0) {
      return new TreeMap<>();
    }
    return history.subMap(key, true, end, false);
  }

  private static KeyValue at(List<Rev> revs, long rev) {
    KeyValue found = null;
    for (Rev r : revs) {
      if (r.main() <= rev) {
        found = r.kv();
      }
    }
    return found;
  }

  @Override
  public synchronized WriteTxn beginTxn(long raftIndex) {
    if (txnOpen) {
      throw new IllegalStateException("txn already open");
    }
    txnOpen = true;
    pendingIndex = raftIndex;
    return new Txn();
  }

  private final class Txn implements WriteTxn {
    private final long rev = latestRev + 1;
    private final List<Event> events = new ArrayList<>();
    private boolean ended;

    @Override
    public long revision() {
      return rev;
    }

    @Override
    public RangeResult range(ByteString key, ByteString rangeEnd, long limit, boolean countOnly) {
      synchronized (InMemoryKvStore.this) {
        check();
        RangeResult r = rangeAt(key, rangeEnd, events.isEmpty() ? rev - 1 : rev, limit, countOnly);
        return new RangeResult(r.kvs(), r.count(), events.isEmpty() ? rev - 1 : rev);
      }
    }

    @Override
    public KeyValue put(ByteString key, ByteString value, long lease, boolean withPrev) {
      synchronized (InMemoryKvStore.this) {
        check();
        List<Rev> revs = history.computeIfAbsent(key, k -> new ArrayList<>());
        KeyValue prev = at(revs, rev);
        KeyValue kv = KeyValue.newBuilder().setKey(key).setValue(value).setLease(lease)
            .setCreateRevision(prev == null ? rev : prev.getCreateRevision())
            .setModRevision(rev)
            .setVersion(prev == null ? 1 : prev.getVersion() + 1)
            .build();
        revs.add(new Rev(rev, kv));
        events.add(Event.newBuilder().setType(Event.EventType.PUT).setKv(kv).build());
        return withPrev ? prev : null;
      }
    }

    @Override
    public List<KeyValue> deleteRange(ByteString key, ByteString rangeEnd) {
      synchronized (InMemoryKvStore.this) {
        check();
        List<KeyValue> deleted = new ArrayList<>();
        for (Map.Entry<ByteString, List<Rev>> e : keys(key, rangeEnd).entrySet()) {
          KeyValue prev = at(e.getValue(), rev);
          if (prev != null) {
            deleted.add(prev);
            e.getValue().add(new Rev(rev, null));
            events.add(Event.newBuilder().setType(Event.EventType.DELETE)
                .setKv(KeyValue.newBuilder().setKey(e.getKey()).setModRevision(rev)).build());
          }
        }
        return deleted;
      }
    }

    @Override
    public List<Event> end() {
      synchronized (InMemoryKvStore.this) {
        check();
        ended = true;
        txnOpen = false;
        if (!events.isEmpty()) {
          latestRev = rev;
        }
        return List.copyOf(events);
      }
    }

    private void check() {
      if (ended) {
        throw new IllegalStateException("txn ended");
      }
    }
  }

  @Override
  public synchronized void commitBatch() {
    committedRev = latestRev;
    appliedIndex = pendingIndex;
  }

  @Override
  public synchronized void setApplied(long raftIndex, long raftTerm) {
    appliedIndex = raftIndex;
    appliedTerm = raftTerm;
  }

  @Override
  public synchronized long appliedTerm() {
    return appliedTerm;
  }

  @Override
  public synchronized CompletionStage<Void> compact(long rev) {
    if (rev <= compactRev) {
      throw EtcdError.COMPACTED.exception();
    }
    if (rev > committedRev) {
      throw EtcdError.FUTURE_REV.exception();
    }
    compactRev = rev;
    for (Iterator<List<Rev>> it = history.values().iterator(); it.hasNext(); ) {
      List<Rev> revs = it.next();
      int newest = -1;
      for (int i = 0; i < revs.size(); i++) {
        if (revs.get(i).main() <= rev) {
          newest = i;
        }
      }
      if (newest >= 0) {
        boolean tombstone = revs.get(newest).kv() == null;
        revs.subList(0, tombstone ? newest + 1 : newest).clear();
      }
      if (revs.isEmpty()) {
        it.remove();
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public HashResult hashKV(long rev) {
    throw new UnsupportedOperationException();
  }

  @Override
  public long dbSize() {
    return 0;
  }

  @Override
  public long dbSizeInUse() {
    return 0;
  }

  @Override
  public void close() {}

  private final java.util.Map<String, java.util.TreeMap<com.google.protobuf.ByteString, com.google.protobuf.ByteString>>
      bucketRecords = new java.util.HashMap<>();

  @Override
  public void putBucketRow(String bucket, com.google.protobuf.ByteString key, com.google.protobuf.ByteString value) {
    var rows = bucketRecords.computeIfAbsent(bucket,
        b -> new java.util.TreeMap<>(com.google.protobuf.ByteString.unsignedLexicographicalComparator()));
    if (value == null) {
      rows.remove(key);
    } else {
      rows.put(key, value);
    }
  }

  @Override
  public java.util.List<BucketRow> bucketRows(String bucket) {
    return bucketRecords.getOrDefault(bucket, new java.util.TreeMap<>()).entrySet().stream()
        .map(e -> new BucketRow(bucket, e.getKey(), e.getValue())).toList();
  }

  private final java.util.List<com.google.protobuf.ByteString> alarmRecords = new java.util.ArrayList<>();

  @Override
  public void putAlarm(byte[] record) {
    alarmRecords.add(com.google.protobuf.ByteString.copyFrom(record));
  }

  @Override
  public void deleteAlarm(byte[] record) {
    alarmRecords.remove(com.google.protobuf.ByteString.copyFrom(record));
  }

  @Override
  public java.util.List<byte[]> alarms() {
    return alarmRecords.stream().map(com.google.protobuf.ByteString::toByteArray).toList();
  }

  private final java.util.Map<Long, Long> leaseRecords = new java.util.HashMap<>();
  private final java.util.Map<Long, Long> leaseRemaining = new java.util.HashMap<>();

  @Override
  public synchronized void putLease(long id, long ttlSeconds) {
    putLeaseCheckpoint(id, ttlSeconds, 0);
  }

  @Override
  public synchronized void putLeaseCheckpoint(long id, long ttlSeconds, long remainingTtl) {
    leaseRecords.put(id, ttlSeconds);
    if (remainingTtl == 0) {
      leaseRemaining.remove(id);
    } else {
      leaseRemaining.put(id, remainingTtl);
    }
  }

  @Override
  public synchronized void deleteLease(long id) {
    leaseRecords.remove(id);
    leaseRemaining.remove(id);
  }

  @Override
  public synchronized java.util.Map<Long, Long> leaseCheckpoints() {
    return java.util.Map.copyOf(leaseRemaining);
  }

  @Override
  public synchronized java.util.Map<Long, Long> leases() {
    return java.util.Map.copyOf(leaseRecords);
  }

  @Override
  public java.util.List<io.akkaetcd.proto.mvccpb.Event> events(long fromRev, long toRev) {
    throw new UnsupportedOperationException("history events are read from the LevelDB store");
  }
}
