package io.akkaetcd.apply;

import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.EtcdError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table tests for the pre-raft checks. The duplicate-key cases include every case of etcd v3.5's
 * TestV3TxnDuplicateKeys (tests/integration/v3_grpc_test.go) plus the corners of checkIntervals.
 */
class KvRequestValidatorTest {

  private static final int MAX = 128;

  // ---- single requests ----

  static Stream<Arguments> singleRequests() {
    return Stream.of(
        row("range ok", () -> KvRequestValidator.checkRange(range("a", "")), null),
        row("range empty key", () -> KvRequestValidator.checkRange(range("", "b")), EtcdError.EMPTY_KEY),
        row("range all keys \\0", () -> KvRequestValidator.checkRange(range("\0", "\0")), null),
        row("put ok", () -> KvRequestValidator.checkPut(putReq("a").setValue(bs("v")).build()), null),
        row("put empty key", () -> KvRequestValidator.checkPut(putReq("").build()), EtcdError.EMPTY_KEY),
        row("put ignore_value with value",
            () -> KvRequestValidator.checkPut(putReq("a").setIgnoreValue(true).setValue(bs("v")).build()),
            EtcdError.VALUE_PROVIDED),
        row("put ignore_value without value",
            () -> KvRequestValidator.checkPut(putReq("a").setIgnoreValue(true).setLease(5).build()), null),
        row("put ignore_lease with lease",
            () -> KvRequestValidator.checkPut(putReq("a").setIgnoreLease(true).setLease(5).build()),
            EtcdError.LEASE_PROVIDED),
        row("put ignore_lease without lease",
            () -> KvRequestValidator.checkPut(putReq("a").setIgnoreLease(true).setValue(bs("v")).build()), null),
        row("put empty key checked before value",
            () -> KvRequestValidator.checkPut(putReq("").setIgnoreValue(true).setValue(bs("v")).build()),
            EtcdError.EMPTY_KEY),
        row("put value checked before lease",
            () -> KvRequestValidator.checkPut(putReq("a").setIgnoreValue(true).setValue(bs("v"))
                .setIgnoreLease(true).setLease(1).build()),
            EtcdError.VALUE_PROVIDED),
        row("delete ok", () -> KvRequestValidator.checkDeleteRange(delReq("a", "")), null),
        row("delete empty key", () -> KvRequestValidator.checkDeleteRange(delReq("", "z")), EtcdError.EMPTY_KEY),
        row("compaction is not checked here",
            () -> KvRequestValidator.checkCompaction(CompactionRequest.newBuilder().setRevision(-1).build()), null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("singleRequests")
  void singleRequest(String name, Executable check, EtcdError expected) throws Throwable {
    expect(check, expected);
  }

  // ---- txn shape: op counts, keys, empty ops ----

  static Stream<Arguments> txnShape() {
    return Stream.of(
        row("empty txn", txn(0, List.of(), List.of()), MAX, null),
        row("128 compares", txn(128, List.of(), List.of()), MAX, null),
        row("129 compares", txn(129, List.of(), List.of()), MAX, EtcdError.TOO_MANY_OPS),
        row("128 success", txn(0, puts("s", 128), List.of()), MAX, null),
        row("129 success", txn(0, puts("s", 129), List.of()), MAX, EtcdError.TOO_MANY_OPS),
        row("129 failure", txn(0, List.of(), puts("f", 129)), MAX, EtcdError.TOO_MANY_OPS),
        // the size is the longest list, not the sum
        row("128 + 128 + 128 counted per branch",
            txn(128, puts("s", 128), puts("f", 128)), MAX, null),
        // nested: the child's budget is the parent's budget minus the parent's size
        row("nested fits the rest",
            txn(0, plus(puts("s", 2), nested(txn(0, puts("n", 1), List.of()))), List.of()), 4, null),
        row("nested exceeds the rest",
            txn(0, plus(puts("s", 2), nested(txn(0, puts("n", 2), List.of()))), List.of()), 4,
            EtcdError.TOO_MANY_OPS),
        row("nested compares count too",
            txn(3, List.of(nested(txn(2, List.of(), List.of()))), List.of()), 4, EtcdError.TOO_MANY_OPS),
        row("empty nested txn with nothing left", txn(4, List.of(nested(txn(0, List.of(), List.of()))),
            List.of()), 4, null),
        row("three levels",
            txn(0, List.of(nested(txn(0, List.of(nested(txn(0, puts("x", 2), List.of()))), List.of()))),
                List.of()), 3, EtcdError.TOO_MANY_OPS),
        row("three levels fit",
            txn(0, List.of(nested(txn(0, List.of(nested(txn(0, puts("x", 1), List.of()))), List.of()))),
                List.of()), 3, null),
        row("compare without key",
            TxnRequest.newBuilder().addCompare(Compare.newBuilder().setVersion(1)).build(), MAX,
            EtcdError.EMPTY_KEY),
        row("too many ops wins over empty compare key",
            TxnRequest.newBuilder().addCompare(Compare.newBuilder()).addAllSuccess(puts("s", 2)).build(), 1,
            EtcdError.TOO_MANY_OPS),
        row("put without key in success", txn(0, List.of(put("")), List.of()), MAX, EtcdError.EMPTY_KEY),
        row("range without key in failure", txn(0, List.of(), List.of(rangeOp(""))), MAX, EtcdError.EMPTY_KEY),
        row("delete without key", txn(0, List.of(del("", "")), List.of()), MAX, EtcdError.EMPTY_KEY),
        row("put ignore_value with value in txn",
            txn(0, List.of(op(putReq("a").setIgnoreValue(true).setValue(bs("v")).build())), List.of()), MAX,
            EtcdError.VALUE_PROVIDED),
        row("op with nothing set", txn(0, List.of(RequestOp.getDefaultInstance()), List.of()), MAX,
            EtcdError.KEY_NOT_FOUND),
        row("op with nothing set in nested failure",
            txn(0, List.of(nested(txn(0, List.of(), List.of(RequestOp.getDefaultInstance())))), List.of()), MAX,
            EtcdError.KEY_NOT_FOUND),
        // shape is checked over the whole tree before any duplicate check
        row("empty key found before duplicate",
            txn(0, List.of(put("a"), put("a"), put("")), List.of()), MAX, EtcdError.EMPTY_KEY),
        row("range ops are never duplicates",
            txn(0, List.of(rangeOp("a"), rangeOp("a"), put("a")), List.of()), MAX, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("txnShape")
  void txnShape(String name, TxnRequest txn, int maxTxnOps, EtcdError expected) throws Throwable {
    expect(() -> KvRequestValidator.checkTxn(txn, maxTxnOps), expected);
  }

  // ---- duplicate writes (checkIntervals) ----

  static Stream<Arguments> duplicates() {
    RequestOp putAbc = put("abc");
    RequestOp delAbc = del("abc", "");
    RequestOp delAtoB = del("a", "b");
    RequestOp delAbbToAbc = del("abb", "abc");
    RequestOp thenDelAtoB = nested(txn(0, List.of(delAtoB), List.of()));
    RequestOp bothDelAtoB = nested(txn(0, List.of(delAtoB), List.of(delAtoB)));
    RequestOp thenPutAbc = nested(txn(0, List.of(putAbc), List.of()));
    RequestOp bothPutAbc = nested(txn(0, List.of(putAbc), List.of(putAbc)));
    return Stream.of(
        // etcd's TestV3TxnDuplicateKeys, in its order
        row("put, put", List.of(putAbc, putAbc), EtcdError.DUPLICATE_KEY),
        row("put, delete same key", List.of(putAbc, delAbc), EtcdError.DUPLICATE_KEY),
        row("put under a deleted range", List.of(putAbc, delAtoB), EtcdError.DUPLICATE_KEY),
        row("put, nested delete range", List.of(putAbc, thenDelAtoB), EtcdError.DUPLICATE_KEY),
        row("delete range, nested put", List.of(delAtoB, thenPutAbc), EtcdError.DUPLICATE_KEY),
        row("two nested txns putting on both sides", List.of(bothPutAbc, bothPutAbc), EtcdError.DUPLICATE_KEY),
        row("delete elsewhere, nested put on both sides", List.of(delAbbToAbc, bothPutAbc), null),
        row("nested deletes only", List.of(thenDelAtoB, bothDelAtoB), null),
        row("deletes never clash", List.of(delAbc, delAtoB, delAbc, delAtoB), null),
        row("range end is exclusive", List.of(putAbc, delAbbToAbc), null),
        // corners of the same rules
        row("delete before put, same level", List.of(delAbc, putAbc), EtcdError.DUPLICATE_KEY),
        row("range start is inclusive", List.of(put("a"), delAtoB), EtcdError.DUPLICATE_KEY),
        row("key equal to range end is outside", List.of(put("b"), delAtoB), null),
        row("distinct puts", List.of(put("a"), put("b"), put("c")), null),
        row("point delete is exact", List.of(put("abcd"), delAbc), null),
        row("binary keys compare unsigned", List.of(op(putReq("\u0000").setKey(ByteString.copyFrom(
            new byte[] {(byte) 0xff})).build()), del("a", "b")), null),
        row("binary key inside a high range", List.of(op(PutRequest.newBuilder().setKey(ByteString.copyFrom(
            new byte[] {(byte) 0xf0})).build()), op(DeleteRangeRequest.newBuilder().setKey(
            ByteString.copyFrom(new byte[] {(byte) 0x80})).setRangeEnd(
            ByteString.copyFrom(new byte[] {(byte) 0xff})).build())), EtcdError.DUPLICATE_KEY),
        // etcd takes range_end "\0" literally in this check: [key, "\0") holds no key
        row("from-key delete does not clash (etcd quirk)", List.of(put("b"), del("a", "\0")), null),
        row("same key in nested success and failure", List.of(bothPutAbc), null),
        row("nested failure repeats an earlier nested success",
            List.of(thenPutAbc, nested(txn(0, List.of(), List.of(putAbc)))), EtcdError.DUPLICATE_KEY),
        row("nested put then outer put", List.of(thenPutAbc, putAbc), EtcdError.DUPLICATE_KEY),
        row("outer put then nested put", List.of(putAbc, thenPutAbc), EtcdError.DUPLICATE_KEY),
        row("nested delete then outer put", List.of(nested(txn(0, List.of(), List.of(delAbc))), putAbc),
            EtcdError.DUPLICATE_KEY),
        // deletes of a nested txn only reach puts of later nested txns, not earlier ones (etcd quirk)
        row("nested put, later nested delete", List.of(thenPutAbc, thenDelAtoB), null),
        row("nested delete, later nested put", List.of(thenDelAtoB, thenPutAbc), EtcdError.DUPLICATE_KEY),
        // inside one nested txn the two branches are separate paths
        row("nested success put, failure delete", List.of(nested(txn(0, List.of(putAbc), List.of(delAbc)))),
            null),
        row("duplicate inside a nested branch", List.of(nested(txn(0, List.of(putAbc, putAbc), List.of()))),
            EtcdError.DUPLICATE_KEY),
        row("two levels down, outer delete", List.of(delAtoB,
            nested(txn(0, List.of(nested(txn(0, List.of(), List.of(putAbc)))), List.of()))),
            EtcdError.DUPLICATE_KEY));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("duplicates")
  void duplicatesInSuccess(String name, List<RequestOp> ops, EtcdError expected) throws Throwable {
    expect(() -> KvRequestValidator.checkTxn(txn(0, ops, List.of()), MAX), expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("duplicates")
  void duplicatesInFailure(String name, List<RequestOp> ops, EtcdError expected) throws Throwable {
    expect(() -> KvRequestValidator.checkTxn(txn(0, List.of(), ops), MAX), expected);
  }

  @Test
  void sameKeyInSuccessAndFailureIsAllowed() {
    KvRequestValidator.checkTxn(txn(1, List.of(put("k"), del("m", "")), List.of(put("k"), del("l", "n"))), MAX);
  }

  @Test
  void errorsCarryEtcdText() {
    EtcdException e = assertThrows(EtcdException.class,
        () -> KvRequestValidator.checkTxn(txn(0, List.of(put("k"), put("k")), List.of()), MAX));
    assertEquals("etcdserver: duplicate key given in txn request", e.getMessage());
    e = assertThrows(EtcdException.class, () -> KvRequestValidator.checkRange(range("", "")));
    assertEquals("etcdserver: key is not provided", e.getMessage());
  }

  @Test
  void unsignedCompare() {
    assertTrue(KvRequestValidator.compare(bs("a"), ByteString.copyFrom(new byte[] {(byte) 0x80})) < 0);
    assertTrue(KvRequestValidator.compare(bs("ab"), bs("a")) > 0);
    assertEquals(0, KvRequestValidator.compare(bs("ab"), bs("ab")));
  }

  // ---- helpers ----

  private static void expect(Executable check, EtcdError expected) throws Throwable {
    if (expected == null) {
      check.execute();
    } else {
      EtcdException e = assertThrows(EtcdException.class, check);
      assertEquals(expected, e.error());
    }
  }

  private static Arguments row(Object... values) {
    return Arguments.of(values);
  }

  private static Arguments row(String name, Executable check, EtcdError expected) {
    return Arguments.of(name, check, expected);
  }

  private static ByteString bs(String s) {
    return ByteString.copyFromUtf8(s);
  }

  private static RangeRequest range(String key, String end) {
    return RangeRequest.newBuilder().setKey(bs(key)).setRangeEnd(bs(end)).build();
  }

  private static PutRequest.Builder putReq(String key) {
    return PutRequest.newBuilder().setKey(bs(key));
  }

  private static DeleteRangeRequest delReq(String key, String end) {
    return DeleteRangeRequest.newBuilder().setKey(bs(key)).setRangeEnd(bs(end)).build();
  }

  private static RequestOp op(PutRequest p) {
    return RequestOp.newBuilder().setRequestPut(p).build();
  }

  private static RequestOp op(DeleteRangeRequest d) {
    return RequestOp.newBuilder().setRequestDeleteRange(d).build();
  }

  private static RequestOp put(String key) {
    return op(putReq(key).build());
  }

  private static RequestOp del(String key, String end) {
    return op(delReq(key, end));
  }

  private static RequestOp rangeOp(String key) {
    return RequestOp.newBuilder().setRequestRange(range(key, "")).build();
  }

  private static RequestOp nested(TxnRequest t) {
    return RequestOp.newBuilder().setRequestTxn(t).build();
  }

  private static List<RequestOp> puts(String prefix, int n) {
    List<RequestOp> ops = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ops.add(put(prefix + i));
    }
    return ops;
  }

  private static List<RequestOp> plus(List<RequestOp> ops, RequestOp more) {
    List<RequestOp> all = new ArrayList<>(ops);
    all.add(more);
    return all;
  }

  private static TxnRequest txn(int compares, List<RequestOp> success, List<RequestOp> failure) {
    TxnRequest.Builder b = TxnRequest.newBuilder().addAllSuccess(success).addAllFailure(failure);
    for (int i = 0; i < compares; i++) {
      b.addCompare(Compare.newBuilder().setKey(bs("c" + i)).setTarget(Compare.CompareTarget.VERSION));
    }
    return b.build();
  }
}
