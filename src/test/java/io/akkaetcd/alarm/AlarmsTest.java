package io.akkaetcd.alarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.etcdserverpb.AlarmMember;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest.AlarmAction;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The alarm set on the real LevelDB store: etcd's apply rules, persistence with the applied index, the quota. */
class AlarmsTest {
  @TempDir Path tmp;

  private static AlarmRequest request(AlarmAction action, long member, AlarmType type) {
    return AlarmRequest.newBuilder().setAction(action).setMemberID(member).setAlarm(type).build();
  }

  private static AlarmMember alarm(long member, AlarmType type) {
    return AlarmMember.newBuilder().setMemberID(member).setAlarm(type).build();
  }

  @Test
  void raisedAlarmsAreListedClearedAndKeptAcrossAReopen() {
    Path dir = tmp.resolve("mvcc");
    try (MvccStore store = MvccStore.open(dir)) {
      Alarms alarms = Alarms.recover(store);
      assertTrue(alarms.apply(store, request(AlarmAction.GET, 0, AlarmType.NONE)).getAlarmsList().isEmpty());
      assertEquals(List.of(alarm(7, AlarmType.NOSPACE)),
          alarms.apply(store, request(AlarmAction.ACTIVATE, 7, AlarmType.NOSPACE)).getAlarmsList());
      assertEquals(List.of(alarm(7, AlarmType.NOSPACE)),
          alarms.apply(store, request(AlarmAction.ACTIVATE, 7, AlarmType.NOSPACE)).getAlarmsList(),
          "raising it again answers the one raised");
      alarms.apply(store, request(AlarmAction.ACTIVATE, 9, AlarmType.CORRUPT));
      store.setApplied(3, 1);
      store.commitBatch();
      assertEquals(List.of(alarm(7, AlarmType.NOSPACE)), alarms.get(AlarmType.NOSPACE));
      assertEquals(2, alarms.apply(store, request(AlarmAction.GET, 0, AlarmType.NONE)).getAlarmsCount());
      assertTrue(alarms.apply(store, request(AlarmAction.DEACTIVATE, 8, AlarmType.NOSPACE)).getAlarmsList().isEmpty(),
          "clearing an alarm not raised answers nothing");
    }
    try (MvccStore store = MvccStore.open(dir)) {
      assertEquals(3, store.appliedIndex());
      Alarms alarms = Alarms.recover(store);
      assertTrue(alarms.active(AlarmType.NOSPACE), "written with the applied index");
      assertEquals(List.of(alarm(7, AlarmType.NOSPACE)),
          alarms.apply(store, request(AlarmAction.DEACTIVATE, 7, AlarmType.NOSPACE)).getAlarmsList());
      store.setApplied(4, 1);
      store.commitBatch();
      assertFalse(alarms.active(AlarmType.NOSPACE));
      assertEquals(List.of(alarm(9, AlarmType.CORRUPT)), alarms.get(AlarmType.NONE));
    }
    try (MvccStore store = MvccStore.open(dir)) {
      assertEquals(List.of(alarm(9, AlarmType.CORRUPT)), Alarms.recover(store).get(AlarmType.NONE));
    }
  }

  @Test
  void alarmsPrintAsEtcdPrintsThem() {
    assertEquals("memberID:13668033151171901709 alarm:NOSPACE ",
        Alarms.describe(alarm(Long.parseUnsignedLong("13668033151171901709"), AlarmType.NOSPACE)));
  }

  @Test
  void quotaCostsAndWhatIsRefusedWhileNoSpace() {
    PutRequest put = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k1"))
        .setValue(ByteString.copyFromUtf8("v".repeat(64))).build();
    assertEquals(256 + 2 + 64, Quota.cost(put));
    RequestOp putOp = RequestOp.newBuilder().setRequestPut(put).build();
    RequestOp delOp = RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder()
        .setKey(ByteString.copyFromUtf8("k"))).build();
    TxnRequest nested = TxnRequest.newBuilder().addSuccess(putOp).addSuccess(putOp).build();
    TxnRequest txn = TxnRequest.newBuilder().addSuccess(putOp)
        .addFailure(RequestOp.newBuilder().setRequestTxn(nested)).build();
    assertEquals(2 * Quota.cost(put), Quota.cost(txn), "the costlier branch, nested txns included");
    assertTrue(Quota.available(53248 - Quota.cost(put) - 1, Quota.cost(put), 53248));
    assertFalse(Quota.available(53248 - Quota.cost(put), Quota.cost(put), 53248));
    assertTrue(Quota.available(Long.MAX_VALUE / 2, Quota.cost(put), -1), "a negative quota checks nothing");

    assertTrue(Quota.refusedWhileNoSpace(InternalRaftRequest.newBuilder().setPut(put).build()));
    assertTrue(Quota.refusedWhileNoSpace(InternalRaftRequest.newBuilder().setTxn(txn).build()));
    assertFalse(Quota.refusedWhileNoSpace(InternalRaftRequest.newBuilder()
        .setTxn(TxnRequest.newBuilder().addSuccess(delOp)).build()), "a txn that only deletes");
    assertFalse(Quota.refusedWhileNoSpace(InternalRaftRequest.newBuilder()
        .setDeleteRange(delOp.getRequestDeleteRange()).build()));
    assertTrue(Quota.refusedWhileNoSpace(InternalRaftRequest.newBuilder()
        .setLeaseGrant(io.akkaetcd.proto.etcdserverpb.LeaseGrantRequest.newBuilder().setTTL(10)).build()));
  }
}
