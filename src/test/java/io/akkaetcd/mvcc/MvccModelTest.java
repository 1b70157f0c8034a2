package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded random history (puts, deletes, multi-write txns, read-only txns, batches of several
 * entries, compactions, reopens) checked against a model that keeps every revision's whole state.
 * On failure the message names the seed; set {@code -Dmvcc.seed=N} to replay it.
 */
class MvccModelTest {
  @TempDir Path tmp;

  private static final ByteString ALL = ByteString.copyFrom(new byte[] {0});

  /** The model: the live kvs of every revision (small key space, so a copy per revision is cheap). */
  private final List<TreeMap<String, KeyValue>> states = new ArrayList<>();
  /** The events each revision's txn returned, index = revision. */
  private final List<List<Event>> events = new ArrayList<>();

  private static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Test
  void randomHistoriesMatchTheModel() throws Exception {
    long seed = Long.getLong("mvcc.seed", System.nanoTime());
    try {
      run(seed);
    } catch (Throwable t) {
      throw new AssertionError("seed " + seed + ": " + t, t);
    }
  }

  private void run(long seed) throws Exception {
    Random rnd = new Random(seed);
    Path dir = Files.createTempDirectory(tmp, "mvcc-model");
    states.add(new TreeMap<>()); // revision 0 (unused)
    states.add(new TreeMap<>()); // revision 1: empty
    events.add(List.of());
    events.add(List.of());
    long compacted = 0;
    long index = 0;
    MvccStore s = MvccStore.open(dir);
    try {
      for (int step = 0; step < 1500; step++) {
        int entries = 1 + rnd.nextInt(4);
        for (int e = 0; e < entries; e++) {
          index++;
          if (rnd.nextInt(40) == 0 && states.size() - 1 > compacted) {
            // Compaction mid-batch: checked against the newest revision written, uncommitted included.
            long newest = states.size() - 1;
            long rev = compacted + 1 + rnd.nextInt((int) (newest - compacted));
            s.compact(rev);
            compacted = rev;
            s.setApplied(index, 1);
          } else {
            applyTxn(s, rnd, index);
          }
        }
        s.commitBatch();
        assertEquals(states.size() - 1, s.currentRevision());
        assertEquals(index, s.appliedIndex());
        check(s, rnd, compacted);
        if (rnd.nextInt(100) == 0) {
          s.close();
          s = MvccStore.open(dir);
          assertEquals(compacted, s.compactRevision());
          assertEquals(index, s.appliedIndex());
        }
      }
    } finally {
      s.close();
    }
  }

  private void applyTxn(MvccStore s, Random rnd, long index) {
    TreeMap<String, KeyValue> state = new TreeMap<>(states.get(states.size() - 1));
    long rev = states.size();
    KvStore.WriteTxn t = s.beginTxn(index);
    assertEquals(rev, t.revision());
    List<Event> expected = new ArrayList<>();
    int ops = rnd.nextInt(4); // 0 = a read-only txn
    long sub = 0;
    for (int i = 0; i < ops; i++) {
      String key = "k" + rnd.nextInt(12);
      if (rnd.nextInt(3) > 0) {
        String value = "v" + rnd.nextInt(1000);
        KeyValue prev = state.get(key);
        KeyValue kv = KeyValue.newBuilder().setKey(b(key)).setValue(b(value)).setModRevision(rev)
            .setCreateRevision(prev == null ? rev : prev.getCreateRevision())
            .setVersion(prev == null ? 1 : prev.getVersion() + 1).build();
        assertEquals(prev, t.put(b(key), b(value), 0));
        state.put(key, kv);
        Event.Builder ev = Event.newBuilder().setType(Event.EventType.PUT).setKv(kv);
        if (prev != null) {
          ev.setPrevKv(prev);
        }
        expected.add(ev.build());
        sub++;
      } else {
        boolean single = rnd.nextBoolean();
        String end = "k" + rnd.nextInt(12);
        List<KeyValue> doomed = List.copyOf((single ? state.subMap(key, true, key, true)
            : key.compareTo(end) < 0 ? state.subMap(key, end) : Map.<String, KeyValue>of()).values());
        assertEquals(doomed, t.deleteRange(b(key), single ? ByteString.EMPTY : b(end)));
        for (KeyValue prev : doomed) {
          state.remove(prev.getKey().toStringUtf8());
          expected.add(Event.newBuilder().setType(Event.EventType.DELETE)
              .setKv(KeyValue.newBuilder().setKey(prev.getKey()).setModRevision(rev)).setPrevKv(prev).build());
          sub++;
        }
      }
      // The txn reads its own writes, and counts them (the applier's live-key set).
      assertEquals(List.copyOf(state.values()), t.range(ALL, ALL, 0, false).kvs());
      String from = "k" + rnd.nextInt(12);
      assertEquals(state.tailMap(from).size(), t.range(b(from), ALL, 0, true).count());
      assertEquals(state.tailMap(from).size(), t.range(b(from), ALL, 1, false).count());
    }
    assertEquals(expected, t.end());
    if (sub > 0) {
      states.add(state);
      events.add(expected);
    } else {
      assertEquals(List.of(), expected);
    }
  }

  private void check(MvccStore s, Random rnd, long compacted) {
    long current = states.size() - 1;
    for (int i = 0; i < 5; i++) {
      long at = Math.max(compacted, 1) + rnd.nextInt((int) (current - Math.max(compacted, 1) + 1));
      TreeMap<String, KeyValue> state = states.get((int) at);
      KvStore.RangeResult all = s.range(ALL, ALL, at, 0, false);
      assertEquals(List.copyOf(state.values()), all.kvs(), "at " + at);
      assertEquals(current, all.revision());
      String from = "k" + rnd.nextInt(12);
      String to = "k" + rnd.nextInt(12);
      Map<String, KeyValue> sub = from.compareTo(to) < 0 ? state.subMap(from, to) : Map.of();
      int limit = rnd.nextInt(3);
      KvStore.RangeResult r = s.range(b(from), b(to), at, limit, false);
      assertEquals(sub.size(), r.count());
      List<KeyValue> want = List.copyOf(sub.values());
      assertEquals(limit == 0 ? want : want.subList(0, Math.min(limit, want.size())), r.kvs());
      assertEquals(sub.size(), s.range(b(from), b(to), at, 0, true).count(), "count_only at " + at);
      assertEquals(state.tailMap(from).size(), s.range(b(from), ALL, at, limit, true).count(), "from-key at " + at);
      assertEquals(state.containsKey(from) ? 1 : 0, s.range(b(from), ByteString.EMPTY, at, 0, true).count());
    }
    // At the current revision counts come from the published live-key set, not a walk.
    TreeMap<String, KeyValue> now = states.get((int) current);
    String lo = "k" + rnd.nextInt(12);
    String hi = "k" + rnd.nextInt(12);
    long inRange = lo.compareTo(hi) < 0 ? now.subMap(lo, hi).size() : 0;
    assertEquals(inRange, s.range(b(lo), b(hi), 0, 0, true).count(), "count_only now");
    assertEquals(inRange, s.range(b(lo), b(hi), 0, 1, false).count(), "limited count now");
    assertEquals(now.tailMap(lo).size(), s.range(b(lo), ALL, 0, 2, false).count(), "from-key now");
    // History: each event's prev_kv is the key's kv at the revision before (as etcd's watch reads it).
    long from = compacted + 1 + rnd.nextInt((int) Math.max(1, current - compacted));
    long to = from + rnd.nextInt(5);
    List<Event> want = new ArrayList<>();
    for (long rev = Math.max(from, 2); rev <= Math.min(to, current); rev++) {
      for (Event e : events.get((int) rev)) {
        KeyValue prev = states.get((int) rev - 1).get(e.getKv().getKey().toStringUtf8());
        Event.Builder ev = e.toBuilder().clearPrevKv();
        if (prev != null) {
          ev.setPrevKv(prev);
        }
        want.add(ev.build());
      }
    }
    assertEquals(want, s.events(from, to), "events " + from + ".." + to);
    if (compacted > 1) {
      // Below the compaction revision history is gone; at it, it is still read (etcd's watch).
      assertEquals(EtcdError.COMPACTED,
          assertThrows(EtcdException.class, () -> s.events(compacted - 1, current)).error());
    }
    if (compacted > 1) {
      long below = rnd.nextInt((int) compacted - 1) + 1;
      assertEquals(EtcdError.COMPACTED,
          assertThrows(EtcdException.class, () -> s.range(ALL, ALL, below, 0, false)).error());
    }
    assertEquals(EtcdError.FUTURE_REV,
        assertThrows(EtcdException.class, () -> s.range(ALL, ALL, current + 1, 0, false)).error());
  }
}
