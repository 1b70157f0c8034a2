package io.akkaetcd.api;

import io.akkaetcd.alarm.DiskSpace;
import io.akkaetcd.alarm.Quota;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * etcd's quota check before a put, a writing txn or a lease grant is proposed (v3rpc's
 * quotaKVServer and quotaLeaseServer): a request that does not fit the backend quota raises
 * NOSPACE for this member through Raft, waits for it as etcd's quotaAlarmer does, and is refused
 * with "database space exceeded". Counts the data the store holds ({@code dbSizeInUse}); a disk
 * below its reserve ({@link DiskSpace}) is refused the same way.
 */
final class QuotaGate {
  private final EtcdMember member;

  QuotaGate(EtcdMember member) {
    this.member = member;
  }

  /**
   * Completes if a request of {@code cost} fits the quota and the disk has room; otherwise fails
   * with NO_SPACE once the alarm is raised. With the disk low and the alarm already raised for
   * this member, or the disk exhausted (its Raft member writes nothing, so no proposal would get
   * through), it fails at once.
   */
  CompletionStage<Void> admit(long cost) {
    DiskSpace disk = member.diskSpace();
    boolean diskLow = disk.low();
    if (!diskLow && Quota.available(member.store().dbSizeInUse(), cost, member.quotaBackendBytes())) {
      return CompletableFuture.completedFuture(null);
    }
    long self = member.members().self().value();
    if (diskLow && (disk.exhausted()
        || member.alarms().get(AlarmType.NOSPACE).stream().anyMatch(a -> a.getMemberID() == self))) {
      return CompletableFuture.failedFuture(EtcdError.NO_SPACE.exception());
    }
    AlarmRequest raise = AlarmRequest.newBuilder().setAction(AlarmRequest.AlarmAction.ACTIVATE)
        .setMemberID(self).setAlarm(AlarmType.NOSPACE).build();
    return member.propose(InternalRaftRequest.newBuilder().setAlarm(raise)).handle((applied, error) -> {
      throw EtcdError.NO_SPACE.exception();
    });
  }
}
