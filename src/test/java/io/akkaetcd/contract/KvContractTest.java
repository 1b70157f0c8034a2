package io.akkaetcd.contract;

import static io.akkaetcd.contract.Calls.assertFails;
import static io.akkaetcd.contract.Calls.await;
import static io.akkaetcd.contract.Prefix.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.ResponseOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.util.List;

/**
 * etcd's KV service, one contract over gRPC and in-process: revisions, prev_kv, ranges with
 * range_end, limits and sorting, deletes, txns, compaction, and etcd's errors by gRPC code and
 * exact text (--max-txn-ops 8 and --max-request-bytes 4096 make the limits small). Expected
 * values are etcd v3.5's (server/etcdserver/apply.go, v3rpc/key.go, mvcc).
 */
class KvContractTest extends MemberPerClass {
  private static final String INVALID_ARGUMENT = "INVALID_ARGUMENT";
  private static final String OUT_OF_RANGE = "OUT_OF_RANGE";

  KvContractTest() {
    super("--max-txn-ops", "8", "--max-request-bytes", "4096");
  }

  static PutRequest.Builder put(ByteString key, String value) {
    return PutRequest.newBuilder().setKey(key).setValue(b(value));
  }

  static RangeRequest.Builder range(Prefix p) {
    return RangeRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end());
  }

  static KeyValue kv(ByteString key, String value, long created, long modified, long version) {
    return KeyValue.newBuilder().setKey(key).setValue(b(value)).setCreateRevision(created)
        .setModRevision(modified).setVersion(version).build();
  }

  static List<String> keys(RangeResponse r) {
    return r.getKvsList().stream().map(kv -> kv.getKey().toStringUtf8()).toList();
  }

  static RequestOp op(PutRequest.Builder put) {
    return RequestOp.newBuilder().setRequestPut(put).build();
  }

  static RequestOp op(RangeRequest.Builder range) {
    return RequestOp.newBuilder().setRequestRange(range).build();
  }

  static RequestOp op(DeleteRangeRequest.Builder delete) {
    return RequestOp.newBuilder().setRequestDeleteRange(delete).build();
  }

  static Compare.Builder compare(ByteString key, Compare.CompareTarget target, Compare.CompareResult result) {
    return Compare.newBuilder().setKey(key).setTarget(target).setResult(result);
  }

  @OverEachTransport
  void putAnswersTheNewRevisionAndThePreviousPairWhenAsked(Transport t) {
    ByteString k = Prefix.of("put", t).key("k");
    PutResponse first = await(t.put(put(k, "1").setPrevKv(true).build()));
    long r1 = first.getHeader().getRevision();
    assertFalse(first.hasPrevKv(), "a new key has no previous pair");
    PutResponse second = await(t.put(put(k, "2").setPrevKv(true).build()));
    assertEquals(r1 + 1, second.getHeader().getRevision());
    assertEquals(kv(k, "1", r1, r1, 1), second.getPrevKv());
    PutResponse third = await(t.put(put(k, "3").build()));
    assertEquals(r1 + 2, third.getHeader().getRevision());
    assertFalse(third.hasPrevKv(), "prev_kv only when asked");

    RangeResponse now = await(t.range(RangeRequest.newBuilder().setKey(k).build()));
    assertEquals(List.of(kv(k, "3", r1, r1 + 2, 3)), now.getKvsList());
    assertEquals(1, now.getCount());
    assertFalse(now.getMore());
    assertEquals(r1 + 2, now.getHeader().getRevision());
    RangeResponse old = await(t.range(RangeRequest.newBuilder().setKey(k).setRevision(r1 + 1).build()));
    assertEquals(List.of(kv(k, "2", r1, r1 + 1, 2)), old.getKvsList());
    assertEquals(r1 + 2, old.getHeader().getRevision(), "the header has the current revision, not the one read");
    RangeResponse serializable = await(t.range(RangeRequest.newBuilder().setKey(k).setSerializable(true).build()));
    assertEquals(now.getKvsList(), serializable.getKvsList());
    assertFails(OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        t.range(RangeRequest.newBuilder().setKey(k).setRevision(r1 + 1000).build()));
  }

  @OverEachTransport
  void putWithIgnoreValueKeepsTheValueAndRefusesWhatItCannotKeep(Transport t) {
    Prefix p = Prefix.of("ignore", t);
    long r = await(t.put(put(p.key("k"), "v").build())).getHeader().getRevision();
    PutResponse kept = await(t.put(PutRequest.newBuilder().setKey(p.key("k")).setIgnoreValue(true).setPrevKv(true)
        .build()));
    assertEquals(kv(p.key("k"), "v", r, r, 1), kept.getPrevKv());
    assertEquals(List.of(kv(p.key("k"), "v", r, r + 1, 2)),
        await(t.range(RangeRequest.newBuilder().setKey(p.key("k")).build())).getKvsList());
    assertFails(INVALID_ARGUMENT, "etcdserver: key not found",
        t.put(PutRequest.newBuilder().setKey(p.key("missing")).setIgnoreValue(true).build()));
    assertFails(INVALID_ARGUMENT, "etcdserver: key not found",
        t.put(put(p.key("missing"), "v").setIgnoreLease(true).build()));
    assertFails(INVALID_ARGUMENT, "etcdserver: value is provided",
        t.put(put(p.key("k"), "x").setIgnoreValue(true).build()));
    assertFails(INVALID_ARGUMENT, "etcdserver: lease is provided",
        t.put(put(p.key("k"), "x").setIgnoreLease(true).setLease(1).build()));
    assertFails(INVALID_ARGUMENT, "etcdserver: key is not provided", t.put(put(ByteString.EMPTY, "x").build()));
    assertFails("NOT_FOUND", "etcdserver: requested lease not found",
        t.put(put(p.key("k"), "x").setLease(0x7eadbeefL).build()));
    assertEquals(r + 1, await(t.range(RangeRequest.newBuilder().setKey(p.key("k")).build())).getHeader().getRevision(),
        "refused puts write nothing");
  }

  @OverEachTransport
  void rangesCountLimitSortAndLeaveOutWhatTheyAreAskedTo(Transport t) {
    Prefix p = Prefix.of("range", t);
    long first = await(t.put(put(p.key("a"), "3").build())).getHeader().getRevision();
    await(t.put(put(p.key("b"), "1").build()));
    await(t.put(put(p.key("c"), "2").build()));
    await(t.put(put(p.key("d"), "0").build()));
    await(t.put(put(p.end(), "outside").build()));
    String s = p.start();

    RangeResponse all = await(t.range(range(p).build()));
    assertEquals(List.of(s + "a", s + "b", s + "c", s + "d"), keys(all));
    assertEquals(kv(p.key("a"), "3", first, first, 1), all.getKvs(0));
    assertEquals(4, all.getCount());
    assertFalse(all.getMore());

    RangeResponse limited = await(t.range(range(p).setLimit(2).build()));
    assertEquals(List.of(s + "a", s + "b"), keys(limited));
    assertEquals(4, limited.getCount(), "count is the whole range's");
    assertTrue(limited.getMore());
    RangeResponse exact = await(t.range(range(p).setLimit(4).build()));
    assertFalse(exact.getMore(), "a limit the range fits in cuts nothing");

    RangeResponse lastByKey = await(t.range(range(p).setSortTarget(RangeRequest.SortTarget.KEY)
        .setSortOrder(RangeRequest.SortOrder.DESCEND).setLimit(1).build()));
    assertEquals(List.of(s + "d"), keys(lastByKey));
    assertTrue(lastByKey.getMore());
    RangeResponse byValue = await(t.range(range(p).setSortTarget(RangeRequest.SortTarget.VALUE)
        .setSortOrder(RangeRequest.SortOrder.ASCEND).build()));
    assertEquals(List.of(s + "d", s + "b", s + "c", s + "a"), keys(byValue));
    RangeResponse byCreate = await(t.range(range(p).setSortTarget(RangeRequest.SortTarget.CREATE)
        .setSortOrder(RangeRequest.SortOrder.DESCEND).build()));
    assertEquals(List.of(s + "d", s + "c", s + "b", s + "a"), keys(byCreate));

    RangeResponse counted = await(t.range(range(p).setCountOnly(true).build()));
    assertEquals(0, counted.getKvsCount());
    assertEquals(4, counted.getCount());
    RangeResponse keysOnly = await(t.range(range(p).setKeysOnly(true).build()));
    assertEquals(List.of(s + "a", s + "b", s + "c", s + "d"), keys(keysOnly));
    assertEquals(kv(p.key("a"), "", first, first, 1), keysOnly.getKvs(0));
    RangeResponse newer = await(t.range(range(p).setMinModRevision(first + 2).build()));
    assertEquals(List.of(s + "c", s + "d"), keys(newer));

    RangeResponse missing = await(t.range(RangeRequest.newBuilder().setKey(p.key("none")).build()));
    assertEquals(0, missing.getCount());
    assertEquals(0, missing.getKvsCount());
    assertFails(INVALID_ARGUMENT, "etcdserver: key is not provided", t.range(RangeRequest.newBuilder().build()));
  }

  @OverEachTransport
  void aRangeEndOfZeroMeansEveryKeyFromTheKeyOn(Transport t) {
    // 0xFF never occurs in UTF-8: these keys sort after every other test's.
    ByteString base = ByteString.copyFrom(new byte[] {(byte) 0xff, (byte) 0xfe});
    ByteString zero = ByteString.copyFrom(new byte[] {0});
    await(t.deleteRange(DeleteRangeRequest.newBuilder().setKey(base).setRangeEnd(zero).build()));
    await(t.put(put(base.concat(b("a")), "1").build()));
    await(t.put(put(base.concat(b("b")), "2").build()));
    long r = await(t.put(put(base.concat(b("c")), "3").build())).getHeader().getRevision();

    RangeResponse from = await(t.range(RangeRequest.newBuilder().setKey(base.concat(b("b"))).setRangeEnd(zero).build()));
    assertEquals(List.of(base.concat(b("b")), base.concat(b("c"))),
        from.getKvsList().stream().map(KeyValue::getKey).toList());
    DeleteRangeResponse deleted = await(t.deleteRange(DeleteRangeRequest.newBuilder().setKey(base.concat(b("b")))
        .setRangeEnd(zero).setPrevKv(true).build()));
    assertEquals(2, deleted.getDeleted());
    assertEquals(r + 1, deleted.getHeader().getRevision(), "one revision for the whole range");
    assertEquals(List.of("2", "3"), deleted.getPrevKvsList().stream().map(kv -> kv.getValue().toStringUtf8()).toList());
    assertEquals(1, await(t.range(RangeRequest.newBuilder().setKey(base).setRangeEnd(zero).build())).getCount());
  }

  @OverEachTransport
  void deleteRemovesARangeInOneRevisionWithThePairsWhenAsked(Transport t) {
    Prefix p = Prefix.of("delete", t);
    long ra = await(t.put(put(p.key("a"), "1").build())).getHeader().getRevision();
    await(t.put(put(p.key("b"), "2").build()));
    long r = await(t.put(put(p.key("c"), "3").build())).getHeader().getRevision();

    DeleteRangeResponse none = await(t.deleteRange(DeleteRangeRequest.newBuilder().setKey(p.key("missing")).build()));
    assertEquals(0, none.getDeleted());
    assertEquals(r, none.getHeader().getRevision(), "deleting nothing writes no revision");
    DeleteRangeResponse one = await(t.deleteRange(DeleteRangeRequest.newBuilder().setKey(p.key("a")).setPrevKv(true)
        .build()));
    assertEquals(1, one.getDeleted());
    assertEquals(r + 1, one.getHeader().getRevision());
    assertEquals(List.of(kv(p.key("a"), "1", ra, ra, 1)), one.getPrevKvsList());
    DeleteRangeResponse rest = await(t.deleteRange(DeleteRangeRequest.newBuilder().setKey(p.from())
        .setRangeEnd(p.end()).build()));
    assertEquals(2, rest.getDeleted());
    assertEquals(0, rest.getPrevKvsCount(), "prev_kvs only when asked");
    assertEquals(r + 2, rest.getHeader().getRevision());
    assertEquals(0, await(t.range(range(p).build())).getCount());
    assertEquals(List.of(kv(p.key("a"), "1", ra, ra, 1)),
        await(t.range(RangeRequest.newBuilder().setKey(p.key("a")).setRevision(r).build())).getKvsList(),
        "history keeps what was deleted");
    assertFails(INVALID_ARGUMENT, "etcdserver: key is not provided",
        t.deleteRange(DeleteRangeRequest.newBuilder().build()));
  }

  @OverEachTransport
  void aTxnRunsOneBranchAtOneRevision(Transport t) {
    Prefix p = Prefix.of("txn", t);
    ByteString k = p.key("k");
    ByteString j = p.key("j");
    long r = await(t.put(put(k, "1").build())).getHeader().getRevision();

    TxnResponse swapped = await(t.txn(TxnRequest.newBuilder()
        .addCompare(compare(k, Compare.CompareTarget.VALUE, Compare.CompareResult.EQUAL).setValue(b("1")))
        .addCompare(compare(k, Compare.CompareTarget.MOD, Compare.CompareResult.EQUAL).setModRevision(r))
        .addSuccess(op(put(k, "2").setPrevKv(true)))
        .addSuccess(op(put(j, "x")))
        .addSuccess(op(RangeRequest.newBuilder().setKey(k)))
        .addFailure(op(RangeRequest.newBuilder().setKey(k)))
        .build()));
    assertTrue(swapped.getSucceeded());
    assertEquals(r + 1, swapped.getHeader().getRevision(), "every write of a txn at one revision");
    assertEquals(List.of(ResponseOp.ResponseCase.RESPONSE_PUT, ResponseOp.ResponseCase.RESPONSE_PUT,
        ResponseOp.ResponseCase.RESPONSE_RANGE), swapped.getResponsesList().stream().map(ResponseOp::getResponseCase)
        .toList());
    assertEquals(kv(k, "1", r, r, 1), swapped.getResponses(0).getResponsePut().getPrevKv());
    assertEquals(List.of(kv(k, "2", r, r + 1, 2)), swapped.getResponses(2).getResponseRange().getKvsList(),
        "a txn reads its own writes");

    TxnResponse failed = await(t.txn(TxnRequest.newBuilder()
        .addCompare(compare(k, Compare.CompareTarget.VERSION, Compare.CompareResult.GREATER).setVersion(5))
        .addSuccess(op(put(k, "never")))
        .addFailure(op(RangeRequest.newBuilder().setKey(j)))
        .build()));
    assertFalse(failed.getSucceeded());
    assertEquals(r + 1, failed.getHeader().getRevision(), "a txn that writes nothing takes no revision");
    assertEquals(List.of(kv(j, "x", r + 1, r + 1, 1)), failed.getResponses(0).getResponseRange().getKvsList());

    TxnResponse nested = await(t.txn(TxnRequest.newBuilder()
        .addCompare(compare(j, Compare.CompareTarget.CREATE, Compare.CompareResult.EQUAL).setCreateRevision(r + 1))
        .addSuccess(RequestOp.newBuilder().setRequestTxn(TxnRequest.newBuilder()
            .addCompare(compare(p.key("absent"), Compare.CompareTarget.VERSION, Compare.CompareResult.EQUAL)
                .setVersion(0))
            .addSuccess(op(DeleteRangeRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end()).setPrevKv(true)))))
        .build()));
    assertTrue(nested.getSucceeded());
    assertEquals(r + 2, nested.getHeader().getRevision());
    TxnResponse inner = nested.getResponses(0).getResponseTxn();
    assertTrue(inner.getSucceeded());
    assertEquals(2, inner.getResponses(0).getResponseDeleteRange().getDeleted());

    TxnResponse empty = await(t.txn(TxnRequest.getDefaultInstance()));
    assertTrue(empty.getSucceeded(), "no compares: success");
    assertEquals(r + 2, empty.getHeader().getRevision());
  }

  @OverEachTransport
  void aTxnIsRefusedWithEtcdsErrors(Transport t) {
    Prefix p = Prefix.of("txn-errors", t);
    TxnRequest.Builder eight = TxnRequest.newBuilder();
    for (int i = 0; i < 8; i++) {
      eight.addSuccess(op(put(p.key("t" + i), "v")));
    }
    assertTrue(await(t.txn(eight.build())).getSucceeded(), "--max-txn-ops 8 allows 8");
    assertFails(INVALID_ARGUMENT, "etcdserver: too many operations in txn request",
        t.txn(eight.clone().addSuccess(op(put(p.key("t8"), "v"))).build()));
    TxnRequest.Builder nineCompares = TxnRequest.newBuilder();
    for (int i = 0; i < 9; i++) {
      nineCompares.addCompare(compare(p.key("t" + i), Compare.CompareTarget.VERSION, Compare.CompareResult.EQUAL)
          .setVersion(1));
    }
    assertFails(INVALID_ARGUMENT, "etcdserver: too many operations in txn request", t.txn(nineCompares.build()));

    assertFails(INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request", t.txn(TxnRequest.newBuilder()
        .addSuccess(op(put(p.key("d"), "1"))).addSuccess(op(put(p.key("d"), "2"))).build()));
    assertFails(INVALID_ARGUMENT, "etcdserver: duplicate key given in txn request", t.txn(TxnRequest.newBuilder()
        .addFailure(op(put(p.key("d"), "1")))
        .addFailure(op(DeleteRangeRequest.newBuilder().setKey(p.from()).setRangeEnd(p.end()))).build()));
    assertTrue(await(t.txn(TxnRequest.newBuilder().addSuccess(op(put(p.key("d"), "1")))
        .addFailure(op(put(p.key("d"), "2"))).build())).getSucceeded(), "one key in each branch is no duplicate");

    assertFails(INVALID_ARGUMENT, "etcdserver: key is not provided",
        t.txn(TxnRequest.newBuilder().addSuccess(op(put(ByteString.EMPTY, "v"))).build()));
    assertFails("NOT_FOUND", "etcdserver: requested lease not found",
        t.txn(TxnRequest.newBuilder().addSuccess(op(put(p.key("l"), "v").setLease(0x7eadbeefL))).build()));
  }

  @OverEachTransport
  void aWriteOverMaxRequestBytesIsTooLarge(Transport t) {
    // etcd measures the Raft proposal (--max-request-bytes 4096 here), below gRPC's own limit.
    ByteString k = Prefix.of("too-large", t).key("k");
    String big = "v".repeat(5000);
    assertFails(INVALID_ARGUMENT, "etcdserver: request is too large", t.put(put(k, big).build()));
    assertFails(INVALID_ARGUMENT, "etcdserver: request is too large",
        t.txn(TxnRequest.newBuilder().addSuccess(op(put(k, big))).build()));
    long r = await(t.put(put(k, "v".repeat(3000)).build())).getHeader().getRevision();
    assertEquals(1, await(t.range(RangeRequest.newBuilder().setKey(k).setRevision(r).build())).getCount(),
        "a read of it is no proposal");
  }

  @OverEachTransport
  void compactionDropsTheHistoryBeforeItsRevision(Transport t) {
    ByteString k = Prefix.of("compact", t).key("k");
    long r1 = await(t.put(put(k, "1").build())).getHeader().getRevision();
    await(t.put(put(k, "2").build()));
    long r3 = await(t.put(put(k, "3").build())).getHeader().getRevision();

    assertEquals(r3, await(t.compact(CompactionRequest.newBuilder().setRevision(r1 + 1).setPhysical(true).build()))
        .getHeader().getRevision());
    String compacted = "etcdserver: mvcc: required revision has been compacted";
    assertFails(OUT_OF_RANGE, compacted, t.range(RangeRequest.newBuilder().setKey(k).setRevision(r1).build()));
    assertEquals(List.of(kv(k, "2", r1, r1 + 1, 2)),
        await(t.range(RangeRequest.newBuilder().setKey(k).setRevision(r1 + 1).build())).getKvsList(),
        "the compaction revision itself stays readable");
    assertFails(OUT_OF_RANGE, compacted, t.compact(CompactionRequest.newBuilder().setRevision(r1 + 1).build()));
    assertFails(OUT_OF_RANGE, compacted, t.compact(CompactionRequest.newBuilder().setRevision(r1).build()));
    assertFails(OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision",
        t.compact(CompactionRequest.newBuilder().setRevision(r3 + 1000).build()));
  }
}
