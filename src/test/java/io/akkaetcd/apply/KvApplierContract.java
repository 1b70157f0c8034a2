package io.akkaetcd.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.CompactionRequest;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.Compare.CompareResult;
import io.akkaetcd.proto.etcdserverpb.Compare.CompareTarget;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeResponse;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.PutResponse;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest.SortOrder;
import io.akkaetcd.proto.etcdserverpb.RangeRequest.SortTarget;
import io.akkaetcd.proto.etcdserverpb.RangeResponse;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.ResponseOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.etcdserverpb.TxnResponse;
import io.akkaetcd.proto.mvccpb.Event;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KV applier's behaviour, run against every {@link KvStore} implementation (one subclass
 * each). Expectations were checked against a real etcd where noted.
 */
abstract class KvApplierContract {
  static final long LEASE = 0x1234;

  @TempDir Path dir;
  KvStore store;
  KvApplier applier = new KvApplier(id -> id == LEASE);
  long index;

  abstract KvStore open(Path dir) throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = open(dir);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  // ---- fixture: four keys whose orders differ for every sort target -----------------------
  //   key  create  mod  version  value
  //   a    3       5    2        w
  //   b    4       7    3        u
  //   c    2       9    2        r
  //   d    8       8    1        s
  void fourKeys() {
    put("c", "y"); // 2
    put("a", "z"); // 3
    put("b", "x"); // 4
    put("a", "w"); // 5
    put("b", "v"); // 6
    put("b", "u"); // 7
    put("d", "s"); // 8
    put("c", "r"); // 9
    assertEquals(9, store.currentRevision());
  }

  // ---- Range ------------------------------------------------------------------------------

  @Test
  void rangeSortsByEveryTargetInEveryOrder() {
    fourKeys();
    Object[][] table = {
      // order, target, expected keys (ties keep ascending key order, as etcd's sort leaves them)
      {SortOrder.NONE, SortTarget.KEY, "abcd"},
      {SortOrder.ASCEND, SortTarget.KEY, "abcd"},
      {SortOrder.DESCEND, SortTarget.KEY, "dcba"},
      {SortOrder.NONE, SortTarget.CREATE, "cabd"},
      {SortOrder.ASCEND, SortTarget.CREATE, "cabd"},
      {SortOrder.DESCEND, SortTarget.CREATE, "dbac"},
      {SortOrder.NONE, SortTarget.MOD, "abdc"},
      {SortOrder.ASCEND, SortTarget.MOD, "abdc"},
      {SortOrder.DESCEND, SortTarget.MOD, "cdba"},
      {SortOrder.NONE, SortTarget.VERSION, "dacb"},
      {SortOrder.ASCEND, SortTarget.VERSION, "dacb"},
      {SortOrder.DESCEND, SortTarget.VERSION, "bacd"},
      {SortOrder.NONE, SortTarget.VALUE, "cdba"},
      {SortOrder.ASCEND, SortTarget.VALUE, "cdba"},
      {SortOrder.DESCEND, SortTarget.VALUE, "abdc"},
    };
    for (Object[] row : table) {
      RangeResponse r = range(all().setSortOrder((SortOrder) row[0])
          .setSortTarget((SortTarget) row[1]));
      assertEquals(row[2], keys(r), row[0] + " " + row[1]);
      assertEquals(4, r.getCount());
      assertFalse(r.getMore());
      assertEquals(9, r.getHeader().getRevision());
    }
  }

  @Test
  void rangeLimitMoreAndCount() {
    fourKeys();
    Object[][] table = {
      // limit, order, target, expected keys, more
      {0L, SortOrder.NONE, SortTarget.KEY, "abcd", false},
      {2L, SortOrder.NONE, SortTarget.KEY, "ab", true},
      {3L, SortOrder.NONE, SortTarget.KEY, "abc", true},
      {4L, SortOrder.NONE, SortTarget.KEY, "abcd", false},
      {5L, SortOrder.NONE, SortTarget.KEY, "abcd", false},
      {2L, SortOrder.DESCEND, SortTarget.KEY, "dc", true},
      {1L, SortOrder.ASCEND, SortTarget.VALUE, "c", true},
      {2L, SortOrder.DESCEND, SortTarget.MOD, "cd", true},
      // etcd quirk: order NONE with a non-KEY target fetches limit+1 keys in key order (a, b, c)
      // and sorts only those by version, so d (version 1) is not among them.
      {2L, SortOrder.NONE, SortTarget.VERSION, "ac", true},
      {3L, SortOrder.NONE, SortTarget.VERSION, "dac", true},
    };
    for (Object[] row : table) {
      RangeResponse r = range(all().setLimit((Long) row[0]).setSortOrder((SortOrder) row[1])
          .setSortTarget((SortTarget) row[2]));
      String what = "limit " + row[0] + " " + row[1] + " " + row[2];
      assertEquals(row[3], keys(r), what);
      assertEquals(row[4], r.getMore(), what);
      assertEquals(4, r.getCount(), what);
    }
  }

  @Test
  void rangeFiltersApplyBeforeLimitAndLeaveCountAlone() {
    fourKeys();
    Object[][] table = {
      // minMod, maxMod, minCreate, maxCreate, limit, expected keys, more
      {5L, 0L, 0L, 0L, 0L, "abcd", false},
      {6L, 0L, 0L, 0L, 0L, "bcd", false},
      {0L, 7L, 0L, 0L, 0L, "ab", false},
      {6L, 8L, 0L, 0L, 0L, "bd", false},
      {0L, 0L, 3L, 0L, 0L, "abd", false},
      {0L, 0L, 0L, 3L, 0L, "ac", false},
      {0L, 0L, 3L, 4L, 0L, "ab", false},
      {6L, 0L, 0L, 0L, 1L, "b", true},
      {6L, 0L, 0L, 0L, 3L, "bcd", false},
      {0L, 0L, 9L, 0L, 1L, "", false},
    };
    for (Object[] row : table) {
      RangeResponse r = range(all().setMinModRevision((Long) row[0])
          .setMaxModRevision((Long) row[1]).setMinCreateRevision((Long) row[2])
          .setMaxCreateRevision((Long) row[3]).setLimit((Long) row[4]));
      String what = java.util.Arrays.toString(row);
      assertEquals(row[5], keys(r), what);
      assertEquals(row[6], r.getMore(), what);
      assertEquals(4, r.getCount(), what);
    }
  }

  @Test
  void rangeKeysOnlyCountOnlyAndKeyForms() {
    fourKeys();
    RangeResponse keysOnly = range(all().setKeysOnly(true));
    assertEquals("abcd", keys(keysOnly));
    for (KeyValue kv : keysOnly.getKvsList()) {
      assertTrue(kv.getValue().isEmpty());
      assertTrue(kv.getModRevision() > 0);
    }

    RangeResponse countOnly = range(all().setCountOnly(true).setLimit(1));
    assertEquals(0, countOnly.getKvsCount());
    assertEquals(4, countOnly.getCount());
    assertFalse(countOnly.getMore());
    assertEquals(9, countOnly.getHeader().getRevision());

    RangeResponse one = range(RangeRequest.newBuilder().setKey(bs("b")));
    assertEquals("b", keys(one));
    assertEquals(bs("u"), one.getKvs(0).getValue());
    assertEquals(4, one.getKvs(0).getCreateRevision());
    assertEquals(7, one.getKvs(0).getModRevision());
    assertEquals(3, one.getKvs(0).getVersion());

    assertEquals("", keys(range(RangeRequest.newBuilder().setKey(bs("zz")))));
    assertEquals(0, range(RangeRequest.newBuilder().setKey(bs("zz"))).getCount());
    assertEquals("cd", keys(range(RangeRequest.newBuilder().setKey(bs("c")).setRangeEnd(zero()))));
    assertEquals("bc", keys(range(RangeRequest.newBuilder().setKey(bs("b")).setRangeEnd(bs("d")))));
    assertEquals("abcd", keys(range(RangeRequest.newBuilder().setKey(zero()).setRangeEnd(zero()))));
    assertError(EtcdError.EMPTY_KEY, () -> applier.range(store, RangeRequest.newBuilder().build()));
  }

  @Test
  void rangeTimeTravelAndCompaction() {
    fourKeys();
    RangeResponse at4 = range(all().setRevision(4));
    assertEquals("abc", keys(at4));
    assertEquals(List.of(bs("z"), bs("x"), bs("y")), values(at4));
    assertEquals(9, at4.getHeader().getRevision(), "header carries the current revision");
    assertEquals(3, at4.getCount());
    assertEquals("", keys(range(all().setRevision(1))));
    assertError(EtcdError.FUTURE_REV, () -> applier.range(store, all().setRevision(10).build()));

    CompactResult c = applier.compact(store, CompactionRequest.newBuilder().setRevision(5).build());
    assertEquals(9, c.response().getHeader().getRevision());
    c.durable().toCompletableFuture().join();
    assertError(EtcdError.COMPACTED, () -> applier.range(store, all().setRevision(4).build()));
    assertEquals("abc", keys(range(all().setRevision(5))));
    assertEquals("abcd", keys(range(all())));
    assertError(EtcdError.COMPACTED,
        () -> applier.compact(store, CompactionRequest.newBuilder().setRevision(5).build()));
    assertError(EtcdError.FUTURE_REV,
        () -> applier.compact(store, CompactionRequest.newBuilder().setRevision(10).build()));
  }

  // ---- Put --------------------------------------------------------------------------------

  @Test
  void putAdvancesTheRevisionAndReturnsThePreviousKv() {
    ApplyResult<PutResponse> first = applyPut(PutRequest.newBuilder().setKey(bs("k"))
        .setValue(bs("1")).setPrevKv(true));
    assertEquals(2, first.response().getHeader().getRevision());
    assertFalse(first.response().hasPrevKv());
    assertEquals(1, first.events().size());
    assertEquals(Event.EventType.PUT, first.events().get(0).getType());
    assertEquals(1, first.events().get(0).getKv().getVersion());

    ApplyResult<PutResponse> second = applyPut(PutRequest.newBuilder().setKey(bs("k"))
        .setValue(bs("2")).setLease(LEASE).setPrevKv(true));
    assertEquals(3, second.response().getHeader().getRevision());
    assertEquals(bs("1"), second.response().getPrevKv().getValue());
    assertEquals(2, second.response().getPrevKv().getModRevision());

    ApplyResult<PutResponse> noPrev = applyPut(PutRequest.newBuilder().setKey(bs("k"))
        .setValue(bs("3")));
    assertFalse(noPrev.response().hasPrevKv());
    KeyValue kv = get("k");
    assertEquals(3, kv.getVersion());
    assertEquals(2, kv.getCreateRevision());
    assertEquals(4, kv.getModRevision());
    assertEquals(0, kv.getLease());
  }

  @Test
  void putIgnoreValueAndIgnoreLeaseKeepTheExistingOnes() {
    applyPut(PutRequest.newBuilder().setKey(bs("k")).setValue(bs("v")).setLease(LEASE));
    applyPut(PutRequest.newBuilder().setKey(bs("k")).setIgnoreValue(true));
    KeyValue kv = get("k");
    assertEquals(bs("v"), kv.getValue());
    assertEquals(0, kv.getLease(), "ignore_value alone sets the given lease (none)");
    assertEquals(2, kv.getVersion());

    applyPut(PutRequest.newBuilder().setKey(bs("k")).setValue(bs("w")).setLease(LEASE));
    applyPut(PutRequest.newBuilder().setKey(bs("k")).setValue(bs("x")).setIgnoreLease(true));
    kv = get("k");
    assertEquals(bs("x"), kv.getValue());
    assertEquals(LEASE, kv.getLease());

    ApplyResult<PutResponse> both = applyPut(PutRequest.newBuilder().setKey(bs("k"))
        .setIgnoreValue(true).setIgnoreLease(true).setPrevKv(true));
    assertEquals(bs("x"), both.response().getPrevKv().getValue());
    kv = get("k");
    assertEquals(bs("x"), kv.getValue());
    assertEquals(LEASE, kv.getLease());
    assertEquals(5, kv.getVersion());
  }

  @Test
  void putErrorsWriteNothing() {
    put("k", "v");
    long rev = store.currentRevision();
    Object[][] table = {
      {PutRequest.newBuilder().setKey(bs("missing")).setIgnoreValue(true), EtcdError.KEY_NOT_FOUND},
      {PutRequest.newBuilder().setKey(bs("missing")).setIgnoreLease(true), EtcdError.KEY_NOT_FOUND},
      {PutRequest.newBuilder().setKey(bs("k")).setValue(bs("x")).setIgnoreValue(true),
          EtcdError.VALUE_PROVIDED},
      {PutRequest.newBuilder().setKey(bs("k")).setLease(LEASE).setIgnoreLease(true),
          EtcdError.LEASE_PROVIDED},
      {PutRequest.newBuilder().setKey(bs("k")).setLease(99), EtcdError.LEASE_NOT_FOUND},
      // the lease is looked up first, as etcd does before opening the write txn
      {PutRequest.newBuilder().setKey(bs("missing")).setLease(99).setIgnoreValue(true),
          EtcdError.LEASE_NOT_FOUND},
      {PutRequest.newBuilder().setValue(bs("x")), EtcdError.EMPTY_KEY},
    };
    for (Object[] row : table) {
      PutRequest p = ((PutRequest.Builder) row[0]).build();
      assertError((EtcdError) row[1], () -> applier.put(store, ++index, p));
      store.commitBatch();
      assertEquals(rev, store.currentRevision(), p.toString());
      assertEquals(index, store.appliedIndex());
    }
    assertEquals(bs("v"), get("k").getValue());
    assertEquals(0, range(RangeRequest.newBuilder().setKey(bs("missing"))).getCount());
  }

  // ---- DeleteRange ------------------------------------------------------------------------

  @Test
  void deleteRangeCountsAndReturnsPrevKvs() {
    fourKeys();
    ApplyResult<DeleteRangeResponse> none = applyDelete(DeleteRangeRequest.newBuilder()
        .setKey(bs("x")).setPrevKv(true));
    assertEquals(0, none.response().getDeleted());
    assertEquals(9, none.response().getHeader().getRevision());
    assertTrue(none.events().isEmpty());
    assertEquals(9, store.currentRevision());

    ApplyResult<DeleteRangeResponse> two = applyDelete(DeleteRangeRequest.newBuilder()
        .setKey(bs("b")).setRangeEnd(bs("d")).setPrevKv(true));
    assertEquals(2, two.response().getDeleted());
    assertEquals(10, two.response().getHeader().getRevision());
    assertEquals(List.of(bs("u"), bs("r")),
        two.response().getPrevKvsList().stream().map(KeyValue::getValue).toList());
    assertEquals(2, two.events().size());
    for (Event e : two.events()) {
      assertEquals(Event.EventType.DELETE, e.getType());
      assertEquals(10, e.getKv().getModRevision());
    }
    assertEquals("ad", keys(range(all())));

    ApplyResult<DeleteRangeResponse> rest = applyDelete(DeleteRangeRequest.newBuilder()
        .setKey(zero()).setRangeEnd(zero()));
    assertEquals(2, rest.response().getDeleted());
    assertEquals(0, rest.response().getPrevKvsCount());
    assertEquals(11, store.currentRevision());
    assertEquals("", keys(range(all())));

    // a deleted key comes back with a new create revision and version 1
    put("a", "again");
    assertEquals(12, get("a").getCreateRevision());
    assertEquals(1, get("a").getVersion());
  }

  // ---- Txn compares -----------------------------------------------------------------------

  @Test
  void compareEveryTargetAndResultOnOneKey() {
    put("k", "m"); // 2
    applyPut(PutRequest.newBuilder().setKey(bs("k")).setValue(bs("m")).setLease(LEASE)); // 3
    // k: create 2, mod 3, version 2, value "m", lease LEASE
    Object[][] table = {
      {cmpVersion("k", CompareResult.EQUAL, 2), true},
      {cmpVersion("k", CompareResult.NOT_EQUAL, 2), false},
      {cmpVersion("k", CompareResult.GREATER, 1), true},
      {cmpVersion("k", CompareResult.GREATER, 2), false},
      {cmpVersion("k", CompareResult.LESS, 3), true},
      {cmpVersion("k", CompareResult.LESS, 2), false},
      {cmpCreate("k", CompareResult.EQUAL, 2), true},
      {cmpCreate("k", CompareResult.NOT_EQUAL, 3), true},
      {cmpCreate("k", CompareResult.GREATER, 2), false},
      {cmpCreate("k", CompareResult.LESS, 3), true},
      {cmpMod("k", CompareResult.EQUAL, 3), true},
      {cmpMod("k", CompareResult.NOT_EQUAL, 3), false},
      {cmpMod("k", CompareResult.GREATER, 2), true},
      {cmpMod("k", CompareResult.LESS, 3), false},
      {cmpValue("k", CompareResult.EQUAL, "m"), true},
      {cmpValue("k", CompareResult.NOT_EQUAL, "m"), false},
      {cmpValue("k", CompareResult.GREATER, "l"), true},
      {cmpValue("k", CompareResult.GREATER, "ma"), false},
      {cmpValue("k", CompareResult.LESS, "n"), true},
      {cmpValue("k", CompareResult.LESS, "m"), false},
      {cmpValue("k", CompareResult.LESS, "\u00ff"), true}, // bytes compare unsigned
      {cmpLease("k", CompareResult.EQUAL, LEASE), true},
      {cmpLease("k", CompareResult.NOT_EQUAL, 0), true},
      {cmpLease("k", CompareResult.GREATER, LEASE), false},
      {cmpLease("k", CompareResult.LESS, LEASE + 1), true},
      // a missing key compares as version/create/mod/lease 0, but never matches on value
      {cmpVersion("nope", CompareResult.EQUAL, 0), true},
      {cmpCreate("nope", CompareResult.EQUAL, 0), true},
      {cmpMod("nope", CompareResult.LESS, 1), true},
      {cmpLease("nope", CompareResult.EQUAL, 0), true},
      {cmpVersion("nope", CompareResult.GREATER, 0), false},
      {cmpValue("nope", CompareResult.EQUAL, ""), false},
      {cmpValue("nope", CompareResult.NOT_EQUAL, "x"), false},
      {cmpValue("nope", CompareResult.LESS, "x"), false},
      // a target_union of another kind compares against 0
      {Compare.newBuilder().setKey(bs("k")).setTarget(CompareTarget.VERSION)
          .setResult(CompareResult.GREATER).setModRevision(100).build(), true},
    };
    for (Object[] row : table) {
      Compare c = (Compare) row[0];
      TxnRequest t = TxnRequest.newBuilder().addCompare(c).build();
      assertEquals(row[1], applyTxn(t).response().getSucceeded(), c.toString());
      assertEquals(row[1], applier.txnReadOnly(store, t).getSucceeded(), c.toString());
    }
    assertEquals(3, store.currentRevision());
  }

  @Test
  void compareOverARangeNeedsEveryKey() {
    fourKeys();
    Object[][] table = {
      {rangeCmp(cmpVersion("a", CompareResult.GREATER, 0), "e"), true},
      {rangeCmp(cmpVersion("a", CompareResult.GREATER, 1), "e"), false}, // d has version 1
      {rangeCmp(cmpVersion("a", CompareResult.GREATER, 1), "d"), true},
      {rangeCmp(cmpCreate("a", CompareResult.LESS, 8), "d"), true},
      {rangeCmp(cmpCreate("a", CompareResult.LESS, 8), "e"), false},
      {rangeCmp(cmpValue("a", CompareResult.GREATER, "q"), "e"), true},
      {rangeCmp(cmpValue("a", CompareResult.EQUAL, "w"), "e"), false},
      {rangeCmp(cmpMod("c", CompareResult.GREATER, 7), "\0"), true},
      {rangeCmp(cmpMod("\0", CompareResult.GREATER, 4), "\0"), true},
      {rangeCmp(cmpMod("\0", CompareResult.GREATER, 5), "\0"), false},
      // an empty range behaves like one missing key
      {rangeCmp(cmpVersion("x", CompareResult.EQUAL, 0), "z"), true},
      {rangeCmp(cmpValue("x", CompareResult.NOT_EQUAL, "q"), "z"), false},
    };
    for (Object[] row : table) {
      TxnRequest t = TxnRequest.newBuilder().addCompare((Compare) row[0]).build();
      assertEquals(row[1], applyTxn(t).response().getSucceeded(), row[0].toString());
    }
    // all compares must hold
    TxnRequest two = TxnRequest.newBuilder().addCompare(cmpVersion("a", CompareResult.EQUAL, 2))
        .addCompare(cmpVersion("b", CompareResult.EQUAL, 2)).build();
    assertFalse(applyTxn(two).response().getSucceeded());
  }

  // ---- Txn execution ----------------------------------------------------------------------

  @Test
  void txnIsOneRevisionAndReadsSeeItsOwnWrites() {
    put("a", "1"); // 2
    TxnRequest t = TxnRequest.newBuilder()
        .addCompare(cmpValue("a", CompareResult.EQUAL, "1"))
        .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a"))))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("a")).setValue(bs("2")).setPrevKv(true)))
        .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a"))))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("b")).setValue(bs("3"))))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("a")).setValue(bs("4"))))
        .addSuccess(rangeOp(all()))
        .addSuccess(deleteOp(DeleteRangeRequest.newBuilder().setKey(bs("b")).setPrevKv(true)))
        .addSuccess(rangeOp(all()))
        .addFailure(putOp(PutRequest.newBuilder().setKey(bs("never")).setValue(bs("x"))))
        .build();
    ApplyResult<TxnResponse> res = applyTxn(t);
    TxnResponse r = res.response();
    assertTrue(r.getSucceeded());
    assertEquals(3, r.getHeader().getRevision());
    assertEquals(3, store.currentRevision());
    List<ResponseOp> ops = r.getResponsesList();
    assertEquals(8, ops.size());

    RangeResponse before = ops.get(0).getResponseRange();
    assertEquals(bs("1"), before.getKvs(0).getValue());
    assertEquals(2, before.getHeader().getRevision(), "no write yet: the store revision");
    assertEquals(bs("1"), ops.get(1).getResponsePut().getPrevKv().getValue());
    assertEquals(3, ops.get(1).getResponsePut().getHeader().getRevision());
    RangeResponse after = ops.get(2).getResponseRange();
    assertEquals(bs("2"), after.getKvs(0).getValue());
    assertEquals(3, after.getKvs(0).getModRevision());
    assertEquals(2, after.getKvs(0).getVersion());
    assertEquals(3, after.getHeader().getRevision());
    RangeResponse both = ops.get(5).getResponseRange();
    assertEquals("ab", keys(both));
    assertEquals(bs("4"), both.getKvs(0).getValue());
    assertEquals(3, both.getKvs(0).getVersion(), "each put in a txn is a new version");
    assertEquals(1, ops.get(6).getResponseDeleteRange().getDeleted());
    assertEquals(bs("3"), ops.get(6).getResponseDeleteRange().getPrevKvs(0).getValue());
    assertEquals("a", keys(ops.get(7).getResponseRange()));

    List<Event> ev = res.events();
    assertEquals(4, ev.size());
    assertEquals(List.of("PUT a 2", "PUT b 3", "PUT a 4", "DELETE b "),
        ev.stream().map(e -> e.getType() + " " + e.getKv().getKey().toStringUtf8() + " "
            + e.getKv().getValue().toStringUtf8()).toList());
    for (Event e : ev) {
      assertEquals(3, e.getKv().getModRevision());
    }
    assertEquals(bs("4"), get("a").getValue());
    assertEquals(3, get("a").getVersion());
  }

  @Test
  void txnFailureBranchAndHeadersWithoutWrites() {
    put("a", "1"); // 2
    TxnRequest t = TxnRequest.newBuilder()
        .addCompare(cmpValue("a", CompareResult.EQUAL, "other"))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("s")).setValue(bs("x"))))
        .addFailure(rangeOp(RangeRequest.newBuilder().setKey(bs("a"))))
        .addFailure(deleteOp(DeleteRangeRequest.newBuilder().setKey(bs("missing"))))
        .build();
    ApplyResult<TxnResponse> res = applyTxn(t);
    assertFalse(res.response().getSucceeded());
    assertEquals(2, res.response().getHeader().getRevision());
    assertEquals(0, res.response().getResponses(1).getResponseDeleteRange().getDeleted());
    assertEquals(2, res.response().getResponses(1).getResponseDeleteRange().getHeader()
        .getRevision(), "a delete of nothing before any write reports the store revision");
    assertTrue(res.events().isEmpty());
    assertEquals(2, store.currentRevision());

    // an empty txn succeeds and changes nothing
    ApplyResult<TxnResponse> empty = applyTxn(TxnRequest.getDefaultInstance());
    assertTrue(empty.response().getSucceeded());
    assertEquals(2, empty.response().getHeader().getRevision());
    assertEquals(0, empty.response().getResponsesCount());
  }

  /** The same txn against etcd 3.4 (JSON gateway) answered exactly these headers. */
  @Test
  void headersInsideATxnFollowItsWrites() {
    put("k", "v"); // 2
    TxnResponse r = applyTxn(TxnRequest.newBuilder()
        .addSuccess(deleteOp(DeleteRangeRequest.newBuilder().setKey(bs("nothing"))))
        .addSuccess(txnOp(TxnRequest.newBuilder()
            .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("k"))))))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("n")).setValue(bs("1"))))
        .addSuccess(deleteOp(DeleteRangeRequest.newBuilder().setKey(bs("nothing"))))
        .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("k"))))
        .build()).response();
    assertEquals(3, r.getHeader().getRevision());
    assertEquals(2, r.getResponses(0).getResponseDeleteRange().getHeader().getRevision());
    TxnResponse nested = r.getResponses(1).getResponseTxn();
    assertEquals(io.akkaetcd.proto.etcdserverpb.ResponseHeader.getDefaultInstance(),
        nested.getHeader());
    assertTrue(nested.hasHeader());
    assertEquals(2, nested.getResponses(0).getResponseRange().getHeader().getRevision());
    assertEquals(3, r.getResponses(2).getResponsePut().getHeader().getRevision());
    assertEquals(3, r.getResponses(3).getResponseDeleteRange().getHeader().getRevision());
    assertEquals(3, r.getResponses(4).getResponseRange().getHeader().getRevision());
  }

  @Test
  void nestedTxnsTakeTheirOwnBranchAndCompareBeforeTheOuterWrites() {
    put("a", "1"); // 2
    TxnRequest inner = TxnRequest.newBuilder()
        // sees a = "1": nested compares are evaluated before any write of the outer txn
        .addCompare(cmpValue("a", CompareResult.EQUAL, "1"))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("inner")).setValue(bs("ok"))))
        .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a"))))
        .addFailure(putOp(PutRequest.newBuilder().setKey(bs("inner")).setValue(bs("failed"))))
        .build();
    TxnRequest innerFails = TxnRequest.newBuilder()
        .addCompare(cmpVersion("a", CompareResult.EQUAL, 5))
        .addFailure(txnOp(TxnRequest.newBuilder()
            .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("deep")).setValue(bs("d"))))))
        .build();
    TxnRequest outer = TxnRequest.newBuilder()
        .addCompare(cmpVersion("a", CompareResult.GREATER, 0))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("a")).setValue(bs("2"))))
        .addSuccess(txnOp(inner))
        .addSuccess(txnOp(innerFails))
        .addSuccess(rangeOp(all()))
        .build();
    ApplyResult<TxnResponse> res = applyTxn(outer);
    TxnResponse r = res.response();
    assertTrue(r.getSucceeded());
    assertEquals(3, r.getHeader().getRevision());
    assertEquals(3, store.currentRevision());

    TxnResponse in = r.getResponses(1).getResponseTxn();
    assertTrue(in.getSucceeded());
    assertTrue(in.hasHeader());
    assertEquals(0, in.getHeader().getRevision(), "etcd leaves nested txn headers empty");
    assertEquals(3, in.getResponses(0).getResponsePut().getHeader().getRevision());
    assertEquals(bs("2"), in.getResponses(1).getResponseRange().getKvs(0).getValue());

    TxnResponse in2 = r.getResponses(2).getResponseTxn();
    assertFalse(in2.getSucceeded());
    assertTrue(in2.getResponses(0).getResponseTxn().getSucceeded());
    assertEquals("a deep inner", String.join(" ",
        r.getResponses(3).getResponseRange().getKvsList().stream()
            .map(kv -> kv.getKey().toStringUtf8()).toList()));
    assertEquals(bs("ok"), get("inner").getValue());
    assertEquals(3, res.events().size());
  }

  @Test
  void aFailingTxnWritesNothing() {
    put("a", "1"); // 2
    long rev = store.currentRevision();
    Object[][] table = {
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("missing")).setIgnoreLease(true))),
          EtcdError.KEY_NOT_FOUND},
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("y")).setLease(99))),
          EtcdError.LEASE_NOT_FOUND},
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(txnOp(TxnRequest.newBuilder().addSuccess(
              putOp(PutRequest.newBuilder().setKey(bs("missing")).setIgnoreValue(true))))),
          EtcdError.KEY_NOT_FOUND},
      // etcd checks against the state before the txn: a key created earlier in it does not count
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(txnOp(TxnRequest.newBuilder().addSuccess(
              putOp(PutRequest.newBuilder().setKey(bs("x")).setIgnoreValue(true))))),
          EtcdError.KEY_NOT_FOUND},
      // beyond etcd (which panics): the key exists before but an earlier op deletes it
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(deleteOp(DeleteRangeRequest.newBuilder().setKey(bs("a")).setRangeEnd(bs("b"))))
          .addSuccess(txnOp(TxnRequest.newBuilder().addSuccess(
              putOp(PutRequest.newBuilder().setKey(bs("a")).setIgnoreValue(true))))),
          EtcdError.KEY_NOT_FOUND},
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a")).setRevision(rev + 1))),
          EtcdError.FUTURE_REV},
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))
              .setIgnoreValue(true))),
          EtcdError.VALUE_PROVIDED},
      // both branches are validated, as etcd's API does
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addFailure(putOp(PutRequest.newBuilder().setKey(bs("x")).setLease(LEASE)
              .setIgnoreLease(true))),
          EtcdError.LEASE_PROVIDED},
      {TxnRequest.newBuilder()
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1"))))
          .addSuccess(RequestOp.getDefaultInstance()),
          EtcdError.KEY_NOT_FOUND},
      {TxnRequest.newBuilder().addCompare(Compare.newBuilder().setTarget(CompareTarget.VERSION))
          .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("x")).setValue(bs("1")))),
          EtcdError.EMPTY_KEY},
    };
    for (Object[] row : table) {
      TxnRequest t = ((TxnRequest.Builder) row[0]).build();
      assertError((EtcdError) row[1], () -> applier.txn(store, ++index, t));
      store.commitBatch();
      assertEquals(rev, store.currentRevision(), t.toString());
      assertEquals(index, store.appliedIndex());
      assertEquals("a", keys(range(all())), t.toString());
    }
    // the same ignore_value put passes when the key existed before the txn
    ApplyResult<TxnResponse> ok = applyTxn(TxnRequest.newBuilder()
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("a")).setIgnoreValue(true)))
        .build());
    assertTrue(ok.response().getSucceeded());
    assertEquals(bs("1"), get("a").getValue());
    assertEquals(2, get("a").getVersion());
  }

  @Test
  void rangeInsideATxnCanTimeTravel() {
    put("a", "1"); // 2
    put("a", "2"); // 3
    TxnRequest t = TxnRequest.newBuilder()
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("a")).setValue(bs("3"))))
        .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a")).setRevision(2)))
        .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a")).setRevision(3)))
        .build();
    TxnResponse r = applyTxn(t).response();
    assertEquals(bs("1"), r.getResponses(1).getResponseRange().getKvs(0).getValue());
    assertEquals(4, r.getResponses(1).getResponseRange().getHeader().getRevision());
    assertEquals(bs("2"), r.getResponses(2).getResponseRange().getKvs(0).getValue());
  }

  // ---- Read-only txns ---------------------------------------------------------------------

  @Test
  void readOnlyTxnsDoNotAdvanceTheRevision() {
    fourKeys();
    TxnRequest t = TxnRequest.newBuilder()
        .addCompare(cmpVersion("b", CompareResult.EQUAL, 3))
        .addSuccess(rangeOp(all().setLimit(1)))
        .addSuccess(txnOp(TxnRequest.newBuilder()
            .addCompare(cmpValue("a", CompareResult.EQUAL, "w"))
            .addSuccess(rangeOp(RangeRequest.newBuilder().setKey(bs("a")).setRevision(4)))))
        .addFailure(rangeOp(all()))
        .build();
    assertTrue(KvApplier.isReadOnly(t));
    TxnResponse r = applier.txnReadOnly(store, t);
    assertTrue(r.getSucceeded());
    assertEquals(9, r.getHeader().getRevision());
    assertEquals("a", keys(r.getResponses(0).getResponseRange()));
    assertTrue(r.getResponses(0).getResponseRange().getMore());
    assertEquals(9, r.getResponses(0).getResponseRange().getHeader().getRevision());
    TxnResponse in = r.getResponses(1).getResponseTxn();
    assertTrue(in.getSucceeded());
    assertEquals(bs("z"), in.getResponses(0).getResponseRange().getKvs(0).getValue());

    ApplyResult<TxnResponse> viaRaft = applyTxn(t);
    assertEquals(r, viaRaft.response());
    assertTrue(viaRaft.events().isEmpty());
    assertEquals(9, store.currentRevision());

    assertError(EtcdError.FUTURE_REV, () -> applier.txnReadOnly(store, TxnRequest.newBuilder()
        .addSuccess(rangeOp(all().setRevision(10))).build()));
  }

  @Test
  void isReadOnlyLooksIntoEveryBranchAndNestedTxn() {
    RequestOp read = rangeOp(all());
    RequestOp write = putOp(PutRequest.newBuilder().setKey(bs("k")));
    RequestOp del = deleteOp(DeleteRangeRequest.newBuilder().setKey(bs("k")));
    assertTrue(KvApplier.isReadOnly(TxnRequest.getDefaultInstance()));
    assertTrue(KvApplier.isReadOnly(TxnRequest.newBuilder().addSuccess(read).addFailure(read)
        .build()));
    assertFalse(KvApplier.isReadOnly(TxnRequest.newBuilder().addSuccess(read).addFailure(write)
        .build()));
    assertFalse(KvApplier.isReadOnly(TxnRequest.newBuilder().addSuccess(del).build()));
    assertTrue(KvApplier.isReadOnly(TxnRequest.newBuilder()
        .addSuccess(txnOp(TxnRequest.newBuilder().addFailure(read))).build()));
    assertFalse(KvApplier.isReadOnly(TxnRequest.newBuilder()
        .addSuccess(txnOp(TxnRequest.newBuilder().addFailure(write))).build()));
    assertThrows(IllegalArgumentException.class, () -> applier.txnReadOnly(store,
        TxnRequest.newBuilder().addSuccess(write).build()));
  }

  @Test
  void applyDispatchesOnTheRequestType() {
    ApplyResult<?> p = applier.apply(store, ++index,
        PutRequest.newBuilder().setKey(bs("k")).setValue(bs("v")).build());
    store.commitBatch();
    assertTrue(p.response() instanceof PutResponse);
    ApplyResult<?> d = applier.apply(store, ++index,
        DeleteRangeRequest.newBuilder().setKey(bs("k")).build());
    store.commitBatch();
    assertEquals(1, ((DeleteRangeResponse) d.response()).getDeleted());
    ApplyResult<?> t = applier.apply(store, ++index, TxnRequest.getDefaultInstance());
    store.commitBatch();
    assertTrue(((TxnResponse) t.response()).getSucceeded());
    assertEquals(3, store.currentRevision());
    assertEquals(index, store.appliedIndex());
    assertThrows(IllegalArgumentException.class,
        () -> applier.apply(store, ++index, RangeRequest.getDefaultInstance()));
  }

  @Test
  void severalEntriesInOneBatch() {
    applier.put(store, ++index, PutRequest.newBuilder().setKey(bs("a")).setValue(bs("1")).build());
    ApplyResult<TxnResponse> t = applier.txn(store, ++index, TxnRequest.newBuilder()
        .addCompare(cmpValue("a", CompareResult.EQUAL, "1"))
        .addSuccess(putOp(PutRequest.newBuilder().setKey(bs("a")).setValue(bs("2"))))
        .addFailure(putOp(PutRequest.newBuilder().setKey(bs("b")).setIgnoreValue(true)))
        .build());
    assertTrue(t.response().getSucceeded(), "the txn sees the put of the same batch");
    assertEquals(3, t.response().getHeader().getRevision());
    store.commitBatch();
    assertEquals(3, store.currentRevision());
    assertEquals(bs("2"), get("a").getValue());
  }

  // ---- helpers ----------------------------------------------------------------------------

  static ByteString bs(String s) {
    return ByteString.copyFrom(s, StandardCharsets.ISO_8859_1);
  }

  static ByteString zero() {
    return ByteString.copyFrom(new byte[] {0});
  }

  static RangeRequest.Builder all() {
    return RangeRequest.newBuilder().setKey(zero()).setRangeEnd(zero());
  }

  void put(String k, String v) {
    applyPut(PutRequest.newBuilder().setKey(bs(k)).setValue(bs(v)));
  }

  KeyValue get(String k) {
    RangeResponse r = range(RangeRequest.newBuilder().setKey(bs(k)));
    return r.getKvsCount() == 0 ? null : r.getKvs(0);
  }

  RangeResponse range(RangeRequest.Builder r) {
    return applier.range(store, r.build());
  }

  ApplyResult<PutResponse> applyPut(PutRequest.Builder p) {
    ApplyResult<PutResponse> r = applier.put(store, ++index, p.build());
    store.commitBatch();
    return r;
  }

  ApplyResult<DeleteRangeResponse> applyDelete(DeleteRangeRequest.Builder d) {
    ApplyResult<DeleteRangeResponse> r = applier.deleteRange(store, ++index, d.build());
    store.commitBatch();
    return r;
  }

  ApplyResult<TxnResponse> applyTxn(TxnRequest t) {
    ApplyResult<TxnResponse> r = applier.txn(store, ++index, t);
    store.commitBatch();
    return r;
  }

  static String keys(RangeResponse r) {
    StringBuilder sb = new StringBuilder();
    for (KeyValue kv : r.getKvsList()) {
      sb.append(kv.getKey().toStringUtf8());
    }
    return sb.toString();
  }

  static List<ByteString> values(RangeResponse r) {
    return r.getKvsList().stream().map(KeyValue::getValue).toList();
  }

  static void assertError(EtcdError expected, org.junit.jupiter.api.function.Executable call) {
    EtcdException e = assertThrows(EtcdException.class, call);
    assertEquals(expected, e.error());
    assertEquals(expected.text(), e.getMessage());
  }

  static RequestOp rangeOp(RangeRequest.Builder r) {
    return RequestOp.newBuilder().setRequestRange(r).build();
  }

  static RequestOp putOp(PutRequest.Builder p) {
    return RequestOp.newBuilder().setRequestPut(p).build();
  }

  static RequestOp deleteOp(DeleteRangeRequest.Builder d) {
    return RequestOp.newBuilder().setRequestDeleteRange(d).build();
  }

  static RequestOp txnOp(TxnRequest t) {
    return RequestOp.newBuilder().setRequestTxn(t).build();
  }

  static RequestOp txnOp(TxnRequest.Builder t) {
    return RequestOp.newBuilder().setRequestTxn(t).build();
  }

  static Compare cmpVersion(String k, CompareResult r, long v) {
    return Compare.newBuilder().setKey(bs(k)).setTarget(CompareTarget.VERSION).setResult(r)
        .setVersion(v).build();
  }

  static Compare cmpCreate(String k, CompareResult r, long v) {
    return Compare.newBuilder().setKey(bs(k)).setTarget(CompareTarget.CREATE).setResult(r)
        .setCreateRevision(v).build();
  }

  static Compare cmpMod(String k, CompareResult r, long v) {
    return Compare.newBuilder().setKey(bs(k)).setTarget(CompareTarget.MOD).setResult(r)
        .setModRevision(v).build();
  }

  static Compare cmpValue(String k, CompareResult r, String v) {
    return Compare.newBuilder().setKey(bs(k)).setTarget(CompareTarget.VALUE).setResult(r)
        .setValue(bs(v)).build();
  }

  static Compare cmpLease(String k, CompareResult r, long v) {
    return Compare.newBuilder().setKey(bs(k)).setTarget(CompareTarget.LEASE).setResult(r)
        .setLease(v).build();
  }

  static Compare rangeCmp(Compare c, String end) {
    return c.toBuilder().setRangeEnd(bs(end)).build();
  }
}
