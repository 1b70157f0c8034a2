package io.akkaetcd.bbolt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.leasepb.Lease;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our images checked by Debian's etcdctl/etcd 3.4, and real etcd's snapshots read by our reader. */
class EtcdSnapshotInteropTest {
  private static final long LEASE = 0x1234;
  private static final int MANY = 20_000; // three levels: a root branch over branches over leaves
  private static final ByteString BINARY = ByteString.copyFrom(new byte[] {0, (byte) 0xff, 10});

  @TempDir Path dir;

  @BeforeAll
  static void etcdInstalled() {
    assumeTrue(RealEtcd.installed(), "Debian's etcd and etcdctl are needed");
  }

  /** A store after: foo@2 (compacted away), foo@3, bar@4 with a lease, a binary key@5, MANY puts
   *  in one txn @6, a 200 KB value @7, delete foo @8; compacted at 3. */
  private static EtcdExport store() {
    List<EtcdExport.Revision> revs = new ArrayList<>();
    revs.add(put(3, 0, "foo", 2, 2, "v2", 0));
    revs.add(put(4, 0, "bar", 4, 1, "b", LEASE));
    revs.add(new EtcdExport.Revision(5, 0, false, KeyValue.newBuilder().setKey(BINARY).setValue(BINARY)
        .setCreateRevision(5).setModRevision(5).setVersion(1).build()));
    for (int i = 0; i < MANY; i++) {
      revs.add(put(6, i, String.format("many/%05d", i), 6, 1, "value " + i, 0));
    }
    revs.add(put(7, 0, "big", 7, 1, "x".repeat(200_000), 0));
    revs.add(new EtcdExport.Revision(8, 0, true, KeyValue.newBuilder().setKey(ByteString.copyFromUtf8("foo")).build()));
    return new EtcdExport() {
      @Override
      public void revisions(Sink<Revision> sink) throws IOException {
        for (Revision r : revs) {
          sink.accept(r);
        }
      }

      @Override
      public void leases(Sink<EtcdExport.Lease> sink) throws IOException {
        sink.accept(new EtcdExport.Lease(LEASE, 600));
      }

      @Override
      public long consistentIndex() {
        return 42;
      }

      @Override
      public long finishedCompactRevision() {
        return 3;
      }

      @Override
      public long scheduledCompactRevision() {
        return 3;
      }

      @Override
      public List<Row> rows() {
        return List.of(new Row("cluster", ByteString.copyFromUtf8("clusterVersion"), ByteString.copyFromUtf8("3.4.0")));
      }
    };
  }

  private static EtcdExport.Revision put(long main, long sub, String key, long create, long version, String value, long lease) {
    return new EtcdExport.Revision(main, sub, false, KeyValue.newBuilder().setKey(ByteString.copyFromUtf8(key))
        .setValue(ByteString.copyFromUtf8(value)).setCreateRevision(create).setModRevision(main)
        .setVersion(version).setLease(lease).build());
  }

  private static long jsonLong(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\":(-?\\d+)").matcher(json);
    assertTrue(m.find(), field + " in " + json);
    return Long.parseLong(m.group(1));
  }

  @Test
  void etcdctlChecksAndRestoresOurSnapshotAndEtcdServesIt() throws Exception {
    Path snap = dir.resolve("ours.db");
    try (OutputStream out = Files.newOutputStream(snap)) {
      SnapshotFraming.writeWithHash(new EtcdBuckets(store()), out);
    }
    // key rows + meta (consistent_index, finished/scheduledCompactRev) + lease + cluster
    long totalKey = (MANY + 5) + 3 + 1 + 1;
    String status = RealEtcd.etcdctl("snapshot", "status", snap.toString(), "-w", "json").ok().stdout();
    assertEquals(8, jsonLong(status, "revision"), status);
    assertEquals(totalKey, jsonLong(status, "totalKey"), status);

    Path data = dir.resolve("restored");
    String peer = RealEtcd.peerUrl();
    RealEtcd.etcdctl("snapshot", "restore", snap.toString(), "--data-dir", data.toString(), "--name", "bbolt-test",
        "--initial-cluster", "bbolt-test=" + peer, "--initial-advertise-peer-urls", peer).ok();
    try (RealEtcd etcd = RealEtcd.start(data, peer)) {
      String bar = etcd.ctl("get", "bar", "-w", "json").ok().stdout();
      assertEquals(8, jsonLong(bar, "revision"), bar);
      assertEquals(4, jsonLong(bar, "create_revision"), bar);
      assertEquals(4, jsonLong(bar, "mod_revision"), bar);
      assertEquals(LEASE, jsonLong(bar, "lease"), bar);
      String foo = etcd.ctl("get", "foo", "-w", "json").ok().stdout();
      assertTrue(!foo.contains("\"kvs\"") && !foo.contains("\"count\""), foo);
      assertEquals(MANY + 3, jsonLong(etcd.ctl("get", "", "--prefix", "--keys-only", "-w", "json").ok().stdout(), "count"));
      assertEquals(MANY, jsonLong(etcd.ctl("get", "many/", "--prefix", "--keys-only", "-w", "json").ok().stdout(), "count"));
      assertEquals("x".repeat(200_000) + "\n", etcd.ctl("get", "big", "--print-value-only").ok().stdout());
      String old = etcd.ctl("get", "foo", "--rev=3", "-w", "json").ok().stdout();
      assertEquals(3, jsonLong(old, "mod_revision"), old);
      assertEquals(2, jsonLong(old, "version"), old);
      RealEtcd.Result compacted = etcd.ctl("get", "foo", "--rev=2");
      assertNotEquals(0, compacted.exit());
      assertTrue(compacted.stderr().contains("required revision has been compacted"), compacted.stderr());
      String ttl = etcd.ctl("lease", "timetolive", Long.toHexString(LEASE), "--keys", "-w", "json").ok().stdout();
      assertEquals(600, jsonLong(ttl, "granted-ttl"), ttl);
    }
  }

  @Test
  void ourReaderReadsRealEtcdsSnapshot() throws Exception {
    Path snap = dir.resolve("theirs.db");
    try (RealEtcd etcd = RealEtcd.start(dir.resolve("etcd"), RealEtcd.peerUrl())) {
      etcd.ctl("put", "a", "1").ok();
      etcd.ctl("lease", "grant", "600").ok();
      String leases = etcd.ctl("lease", "list").ok().stdout();
      String leaseHex = leases.lines().filter(l -> l.matches("[0-9a-f]+")).findFirst().orElseThrow();
      etcd.ctl("put", "b", "2", "--lease=" + leaseHex).ok();
      etcd.ctl("put", "a", "3").ok();
      etcd.ctl("del", "a").ok();
      etcd.ctl("snapshot", "save", snap.toString()).ok();
      byte[] file = Files.readAllBytes(snap);
      assertTrue(SnapshotFraming.hasHash(file.length));
      byte[] image = Arrays.copyOf(file, file.length - 32);
      assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(image), Arrays.copyOfRange(file, image.length, file.length));

      Map<String, List<ByteString[]>> buckets = new HashMap<>();
      long pairs = 0;
      try (BboltReader reader = BboltReader.open(snap)) {
        for (ByteString name : reader.bucketNames()) {
          List<ByteString[]> rows = new ArrayList<>();
          reader.forEach(name, (k, v) -> rows.add(new ByteString[] {k, v}));
          buckets.put(name.toStringUtf8(), rows);
          pairs += rows.size();
        }
      }
      assertTrue(buckets.keySet().containsAll(EtcdBuckets.ALL), buckets.keySet().toString());
      List<String> events = new ArrayList<>();
      for (ByteString[] row : buckets.get("key")) {
        ByteBuffer rev = row[0].asReadOnlyByteBuffer();
        KeyValue kv = KeyValue.parseFrom(row[1]);
        events.add(rev.getLong(0) + (row[0].size() == 18 ? " del " : " put ") + kv.getKey().toStringUtf8()
            + (kv.getLease() != 0 ? " lease" : ""));
        if (kv.getKey().toStringUtf8().equals("b")) {
          assertEquals(Long.parseLong(leaseHex, 16), kv.getLease());
        }
      }
      assertEquals(List.of("2 put a", "3 put b lease", "4 put a", "5 del a"), events);
      List<ByteString[]> leaseRows = buckets.get("lease");
      assertEquals(1, leaseRows.size());
      Lease lease = Lease.parseFrom(leaseRows.get(0)[1]);
      assertEquals(Long.parseLong(leaseHex, 16), lease.getID());
      assertEquals(600, lease.getTTL());
      assertEquals(EtcdBuckets.be64(lease.getID()), leaseRows.get(0)[0]);
      String status = RealEtcd.etcdctl("snapshot", "status", snap.toString(), "-w", "json").ok().stdout();
      assertEquals(pairs, jsonLong(status, "totalKey"), status);
      assertEquals(5, jsonLong(status, "revision"), status);
    }
  }
}
