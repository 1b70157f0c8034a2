package io.akkaetcd.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.akkaetcd.apply.ApplyResult;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpoint;
import io.akkaetcd.proto.etcdserverpb.LeaseCheckpointRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key follows its latest put between leases, although puts no longer read the key's previous
 * version: the lessor knows which lease each key is attached to.
 */
class LessorTest {
  @TempDir Path tmp;

  private static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  @Test
  void aPutMovesItsKeyBetweenLeasesAndADeleteDetachesIt() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "lessor");
    long index = 1;
    try (MvccStore store = MvccStore.open(dir)) {
      Lessor lessor = new Lessor(1);
      KvApplier kv = new KvApplier(lessor);
      lessor.grant(store, LeaseGrantRequest.newBuilder().setID(1).setTTL(60).build());
      lessor.grant(store, LeaseGrantRequest.newBuilder().setID(2).setTTL(60).build());
      put(store, kv, lessor, index++, PutRequest.newBuilder().setKey(b("k")).setLease(1));
      assertEquals(Set.of(b("k")), lessor.get(1).orElseThrow().keys());
      put(store, kv, lessor, index++, PutRequest.newBuilder().setKey(b("k")).setLease(2));
      assertEquals(Set.of(), lessor.get(1).orElseThrow().keys());
      assertEquals(Set.of(b("k")), lessor.get(2).orElseThrow().keys());
      put(store, kv, lessor, index++, PutRequest.newBuilder().setKey(b("k")));
      assertEquals(Set.of(), lessor.get(2).orElseThrow().keys());
      put(store, kv, lessor, index++, PutRequest.newBuilder().setKey(b("k")).setLease(1));
      ApplyResult<?> deleted = kv.deleteRange(store, index++,
          io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest.newBuilder().setKey(b("k")).build());
      lessor.observe(deleted.events());
      store.commitBatch();
      assertEquals(Set.of(), lessor.get(1).orElseThrow().keys());

      put(store, kv, lessor, index++, PutRequest.newBuilder().setKey(b("k2")).setLease(2));
    }
    // A restart rebuilds the attachments from the keys' lease fields.
    try (MvccStore store = MvccStore.open(dir)) {
      Lessor recovered = Lessor.recover(store, 1);
      assertEquals(Set.of(b("k2")), recovered.get(2).orElseThrow().keys());
      put(store, new KvApplier(recovered), recovered, index++, PutRequest.newBuilder().setKey(b("k2")).setLease(1));
      assertEquals(Set.of(), recovered.get(2).orElseThrow().keys());
      assertEquals(Set.of(b("k2")), recovered.get(1).orElseThrow().keys());
    }
  }

  @Test
  void aCheckpointSurvivesARestartOnlyWhenPersisted() throws Exception {
    for (boolean persist : new boolean[] {true, false}) {
      Path dir = Files.createTempDirectory(tmp, "checkpoint");
      try (MvccStore store = MvccStore.open(dir)) {
        Lessor lessor = new Lessor(1, persist);
        lessor.grant(store, LeaseGrantRequest.newBuilder().setID(7).setTTL(120).build());
        lessor.grant(store, LeaseGrantRequest.newBuilder().setID(8).setTTL(120).build());
        lessor.checkpoint(store, LeaseCheckpointRequest.newBuilder()
            .addCheckpoints(LeaseCheckpoint.newBuilder().setID(7).setRemainingTTL(90))
            .addCheckpoints(LeaseCheckpoint.newBuilder().setID(8).setRemainingTTL(80)).build());
        // A renewal's {ID, 0} clears lease 8's: on disk too.
        lessor.checkpoint(store, LeaseCheckpointRequest.newBuilder()
            .addCheckpoints(LeaseCheckpoint.newBuilder().setID(8).setRemainingTTL(0)).build());
        store.commitBatch();
        assertEquals(Map.of(7L, 90L), lessor.remainingTtls());
      }
      try (MvccStore store = MvccStore.open(dir)) {
        Lessor recovered = Lessor.recover(store, 1, persist);
        assertEquals(Map.of(7L, 120L, 8L, 120L), recovered.ttls(), "the TTLs as granted");
        assertEquals(persist ? Map.of(7L, 90L) : Map.of(), recovered.remainingTtls(), "persist " + persist);
      }
    }
  }

  private static void put(MvccStore store, KvApplier kv, Lessor lessor, long index, PutRequest.Builder r) {
    ApplyResult<?> result = kv.put(store, index, r.build());
    lessor.observe(result.events());
    store.commitBatch();
  }
}
