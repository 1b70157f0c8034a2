package io.akkaetcd.mvcc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IndexRebuildTest {
  private static Row row(long rev, String key) {
    KeyValue kv = KeyValue.newBuilder().setKey(ByteString.copyFrom(key, java.nio.charset.StandardCharsets.ISO_8859_1))
        .setCreateRevision(rev).setModRevision(rev).setVersion(1).build();
    return new Row(StoreLayout.revKey(new Revision(rev, 0), false), kv.toByteArray());
  }

  /** A revision row as the store writes it: 'r' + revision bytes [+ 't'] → the stored KeyValue. */
  private record Row(byte[] key, byte[] value) {}

  /**
   * A history where keys are written on both sides of every split point: puts with and without a
   * lease, re-puts that drop or change a lease, deletes, and a key deleted then written again.
   */
  private static List<Row> history() {
    List<Row> rows = new ArrayList<>();
    Map<String, long[]> live = new LinkedHashMap<>(); // key → {create, version}
    String[] keys = {"a", "b", "c", "a", "c", "b", "a", "d", "b", "a", "c", "d"};
    long[] leases = {0, 7, 0, 9, 0, 0, 0, 7, 8, 0, 5, 0};
    boolean[] deletes = {false, false, false, false, true, false, true, false, false, false, false, true};
    long rev = 2;
    for (int i = 0; i < keys.length; i++, rev++) {
      ByteString key = ByteString.copyFromUtf8(keys[i]);
      KeyValue kv;
      if (deletes[i]) {
        live.remove(keys[i]);
        kv = KeyValue.newBuilder().setKey(key).setModRevision(rev).build();
      } else {
        long[] cv = live.computeIfAbsent(keys[i], k -> new long[] {0, 0});
        if (cv[1] == 0) {
          cv[0] = rev;
        }
        cv[1]++;
        kv = KeyValue.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8("v" + rev)).setCreateRevision(cv[0])
            .setModRevision(rev).setVersion(cv[1]).setLease(leases[i]).build();
      }
      rows.add(new Row(StoreLayout.revKey(new Revision(rev, 0), deletes[i]), kv.toByteArray()));
    }
    return rows;
  }

  @Test
  void sortedPutsKeysInEtcdsOrderEvenWhenTheirFirstEightBytesTie() {
    // prefixes, keys shorter and longer than eight bytes, NULs that pad like the prefix does, bytes >= 0x80
    List<String> sorted = List.of("a", "a\0", "a\0\0\0\0\0\0\0", "a\0\0\0\0\0\0\0\0", "a\0\0\0\0\0\0\0\1",
        "abcdefgh", "abcdefgh\0", "abcdefghi", "abcdefgi", "b", "\u007f\u00ff", "\u0080", "\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff");
    List<String> shuffled = new ArrayList<>(sorted);
    java.util.Collections.shuffle(shuffled, new java.util.Random(7));
    IndexRebuild r = new IndexRebuild();
    for (int i = 0; i < shuffled.size(); i++) {
      Row row = row(2 + i, shuffled.get(i));
      r.add(row.key(), row.value());
    }
    assertEquals(sorted, r.sorted().stream()
        .map(h -> new String(h.key(), java.nio.charset.StandardCharsets.ISO_8859_1)).toList());
  }

  @Test
  void manyKeysGrowTheTableAndNoneIsLostOrMixedUp() {
    // 100,000 keys (the table starts with room for 32,768), each written once in the earlier part
    // and every third one again in the later part, joined as at open.
    int n = 100_000;
    IndexRebuild earlier = new IndexRebuild();
    IndexRebuild later = new IndexRebuild();
    long rev = 2;
    for (int k = 0; k < n; k++) {
      Row r = row(rev++, String.format("k%06d", k));
      earlier.add(r.key(), r.value());
    }
    for (int k = 0; k < n; k += 3) {
      Row r = row(rev++, String.format("k%06d", k));
      later.add(r.key(), r.value());
    }
    earlier.append(later);
    Map<String, List<KeyIndex.Version>> keys = keys(earlier);
    assertEquals(n, keys.size());
    assertEquals(n + (n + 2) / 3, earlier.rows());
    int k = 0;
    for (Map.Entry<String, List<KeyIndex.Version>> e : keys.entrySet()) {
      assertEquals(String.format("k%06d", k), e.getKey(), "in key order, none missing");
      assertEquals(2 + k, e.getValue().get(0).revision().main(), e.getKey() + "'s first write");
      assertEquals(k % 3 == 0 ? 2 : 1, e.getValue().size(), e.getKey() + "'s writes");
      k++;
    }
  }

  private static Map<String, List<KeyIndex.Version>> keys(IndexRebuild r) {
    Map<String, List<KeyIndex.Version>> out = new LinkedHashMap<>(); // in the order sorted gives them
    r.sorted().forEach(h -> out.put(new String(h.key()), h.versions()));
    return out;
  }

  @Test
  void joiningPartsReadAtAnySplitGivesWhatOneReadGives() {
    List<Row> rows = history();
    IndexRebuild whole = new IndexRebuild();
    rows.forEach(r -> whole.add(r.key(), r.value()));
    assertEquals(List.of("a", "b", "c", "d"), List.copyOf(keys(whole).keySet()), "in key order");
    assertEquals(Map.of(ByteString.copyFromUtf8("b"), 8L, ByteString.copyFromUtf8("c"), 5L), whole.leased(),
        "a's lease went with its re-put; d was deleted");
    for (int split = 0; split <= rows.size(); split++) {
      IndexRebuild earlier = new IndexRebuild();
      IndexRebuild later = new IndexRebuild();
      rows.subList(0, split).forEach(r -> earlier.add(r.key(), r.value()));
      rows.subList(split, rows.size()).forEach(r -> later.add(r.key(), r.value()));
      earlier.append(later);
      assertEquals(keys(whole), keys(earlier), "split at row " + split);
      assertEquals(whole.leased(), earlier.leased(), "split at row " + split);
      assertEquals(rows.size(), earlier.rows());
    }
  }
}
