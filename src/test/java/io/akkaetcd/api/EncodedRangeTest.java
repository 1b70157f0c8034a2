package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.ActorSystem;
import akka.stream.Materializer;
import akka.util.ByteString;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.ResponseHeader;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Range encoded from the stored rows is byte for byte the RangeResponse the applier builds, whole
 * and streamed; a streamed one reads the store as it was when the range was asked, or ends
 * COMPACTED if a compaction overtakes it.
 */
class EncodedRangeTest {
  private static final int KEYS = 3000;
  private static final ResponseHeader HEADER = ResponseHeader.newBuilder().setClusterId(0x1122334455L)
      .setMemberId(0x66778899L).setRaftTerm(7).build();
  private static ActorSystem system;
  private static Materializer materializer;

  @TempDir Path dir;
  private MvccStore store;
  private final KvApplier applier = new KvApplier(id -> true);
  private long index;

  @BeforeAll
  static void startSystem() {
    system = ActorSystem.create("EncodedRangeTest");
    materializer = Materializer.createMaterializer(system);
  }

  @AfterAll
  static void stopSystem() {
    system.terminate();
  }

  @BeforeEach
  void fill() throws Exception {
    store = MvccStore.open(dir);
    Random random = new Random(42);
    for (int i = 0; i < KEYS; i++) {
      byte[] value = new byte[1000];
      random.nextBytes(value);
      put(key(i), value, i % 7 == 0 ? 0x1234 : 0);
    }
    for (int i = 0; i < KEYS; i += 3) {
      put(key(i), new byte[] {(byte) i}, 0); // a second version of every third key
    }
    applier.deleteRange(store, ++index, DeleteRangeRequest.newBuilder().setKey(bs(key(10))).setRangeEnd(bs(key(20))).build());
    store.commitBatch();
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void encodedRangesEqualBuiltOnes() {
    long old = KEYS / 2;
    List<RangeRequest> requests = List.of(
        all().build(),
        all().setLimit(10).build(),
        all().setLimit(KEYS - 20).build(),
        all().setLimit(KEYS * 2).build(),
        all().setKeysOnly(true).build(),
        all().setSortOrder(RangeRequest.SortOrder.ASCEND).setLimit(100).build(),
        all().setRevision(old).build(),
        all().setRevision(old).setLimit(5).build(),
        all().setRevision(old).setKeysOnly(true).build(),
        RangeRequest.newBuilder().setKey(bs("k01")).setRangeEnd(bs("k02")).build(),
        RangeRequest.newBuilder().setKey(bs(key(3))).build(),
        RangeRequest.newBuilder().setKey(bs(key(12))).build(),
        RangeRequest.newBuilder().setKey(bs("zz")).setRangeEnd(bs("a")).build());
    int streamed = 0;
    for (RangeRequest r : requests) {
      RangeResponse built = applier.range(store, r).toBuilder().setHeader(HEADER).build();
      EncodedMessage encoded = EncodedRange.encode(HEADER, applier.rangeRows(store, r));
      byte[] bytes = bytes(encoded);
      assertEquals(encoded.size(), bytes.length, r.toString());
      assertArrayEquals(built.toByteArray(), bytes, r.toString());
      assertEquals(bytes.length > EncodedRange.STREAM_BYTES, encoded.isStreamed(), r.toString());
      streamed += encoded.isStreamed() ? 1 : 0;
    }
    assertTrue(streamed >= 4, "the large ranges were streamed: " + streamed);
  }

  @Test
  void aReopenedStoreKnowsItsRowsAgain() throws Exception {
    RangeRequest r = all().build();
    byte[] before = applier.range(store, r).toBuilder().setHeader(HEADER).build().toByteArray();
    store.close();
    store = MvccStore.open(dir); // the key index rebuilt from the rows, their sizes with it
    EncodedMessage encoded = EncodedRange.encode(HEADER, applier.rangeRows(store, r));
    assertTrue(encoded.isStreamed());
    assertArrayEquals(before, bytes(encoded));
  }

  @Test
  void aStreamedRangeReadsTheStoreAsItWasAsked() {
    RangeRequest r = all().build();
    byte[] before = applier.range(store, r).toBuilder().setHeader(HEADER).build().toByteArray();
    EncodedMessage encoded = EncodedRange.encode(HEADER, applier.rangeRows(store, r));
    assertTrue(encoded.isStreamed());
    for (int i = 0; i < KEYS; i += 2) {
      put(key(i), new byte[] {1, 2, 3}, 0);
    }
    put("k00000a", new byte[] {4}, 0); // a key new since, in the middle of the range
    applier.deleteRange(store, ++index, DeleteRangeRequest.newBuilder().setKey(bs(key(100))).setRangeEnd(bs(key(200))).build());
    store.commitBatch();
    compact(store.currentRevision() - KEYS); // below the range's revision: every row it reads stays
    assertArrayEquals(before, bytes(encoded));
  }

  @Test
  void aCompactionPastAStreamedRangeEndsItCompacted() {
    EncodedMessage encoded = EncodedRange.encode(HEADER, applier.rangeRows(store, all().build()));
    for (int i = 0; i < KEYS; i++) {
      put(key(i), new byte[] {1, 2, 3}, 0);
    }
    compact(store.currentRevision());
    Exception e = assertThrows(Exception.class, () -> bytes(encoded));
    assertTrue(String.valueOf(e.getCause()).contains(EtcdError.COMPACTED.text()), e.toString());
  }

  private void compact(long revision) {
    var compacted = applier.compact(store, CompactionRequest.newBuilder().setRevision(revision).build());
    store.commitBatch();
    assertDoesNotThrow(() -> compacted.durable().toCompletableFuture().get(30, TimeUnit.SECONDS));
  }

  @Test
  void aStreamedRangeFailsOnceTheStoreCloses() {
    EncodedMessage encoded = EncodedRange.encode(HEADER, applier.rangeRows(store, all().build()));
    store.close();
    Exception e = assertThrows(Exception.class, () -> bytes(encoded));
    assertFalse(e.getMessage() == null, e.toString());
    store = null;
  }

  private static byte[] bytes(EncodedMessage m) {
    return m.parts().runFold(ByteString.emptyByteString(), ByteString::concat, materializer)
        .toCompletableFuture().join().toArray();
  }

  private void put(String k, byte[] v, long lease) {
    applier.put(store, ++index, PutRequest.newBuilder().setKey(bs(k)).setValue(com.google.protobuf.ByteString.copyFrom(v))
        .setLease(lease).build());
    store.commitBatch();
  }

  private static RangeRequest.Builder all() {
    return RangeRequest.newBuilder().setKey(bs("k")).setRangeEnd(bs("l"));
  }

  private static String key(int i) {
    return String.format("k%05d", i);
  }

  private static com.google.protobuf.ByteString bs(String s) {
    return com.google.protobuf.ByteString.copyFromUtf8(s);
  }
}
