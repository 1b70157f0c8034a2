package io.akkaetcd.server;

import io.akkaetcd.alarm.DiskSpace;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raises NOSPACE for this member when the disk of its data directory runs low, and clears the
 * alarm it raised once the disk has room again (etcd panics on ENOSPC; its NOSPACE comes from the
 * quota only and stays until {@code alarm disarm}). The alarm goes through Raft like the quota's,
 * so every member refuses puts, txns that put and lease grants with "mvcc: database space
 * exceeded" while reads, deletes and compaction go on. Which alarm was raised here is held in
 * memory only: after a restart, or when the quota had raised it first, an operator clears it.
 * Runs on the scheduler every {@link #EVERY}; one proposal at a time.
 */
final class DiskAlarm implements Runnable {
  static final Duration EVERY = Duration.ofSeconds(1);
  private static final Logger log = LoggerFactory.getLogger(DiskAlarm.class);

  private final EtcdServer server;
  private final DiskSpace disk;
  private final AtomicBoolean raisedHere = new AtomicBoolean();
  private final AtomicBoolean proposing = new AtomicBoolean();

  DiskAlarm(EtcdServer server, DiskSpace disk) {
    this.server = server;
    this.disk = disk;
  }

  @Override
  public void run() {
    if (disk == DiskSpace.UNLIMITED || proposing.get()) {
      return;
    }
    long self = server.members().self().value();
    boolean raised = server.alarms().get(AlarmType.NOSPACE).stream().anyMatch(a -> a.getMemberID() == self);
    if (!raised && disk.low() && !disk.exhausted()) {
      log.warn("{} raises NOSPACE: {} bytes free on the disk of its data directory, below the reserve of {}",
          Long.toHexString(self), disk.usable(), disk.reserve());
      propose(self, AlarmRequest.AlarmAction.ACTIVATE, true);
    } else if (raised && raisedHere.get() && disk.recovered()) {
      log.info("{} clears the NOSPACE it raised: {} bytes free on the disk of its data directory",
          Long.toHexString(self), disk.usable());
      propose(self, AlarmRequest.AlarmAction.DEACTIVATE, false);
    }
  }

  private void propose(long self, AlarmRequest.AlarmAction action, boolean raise) {
    proposing.set(true);
    AlarmRequest alarm = AlarmRequest.newBuilder().setAction(action).setMemberID(self)
        .setAlarm(AlarmType.NOSPACE).build();
    server.proposeOwn(InternalRaftRequest.newBuilder().setAlarm(alarm)).whenComplete((applied, error) -> {
      if (error == null) {
        raisedHere.set(raise);
      }
      proposing.set(false);
    });
  }
}
