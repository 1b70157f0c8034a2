package io.akkaetcd.api;

import com.google.protobuf.ByteString;
import io.akkaetcd.metrics.MemberGauges;

/** etcd's gauges read from a member at scrape time. */
final class MemberMetricsGauges implements MemberGauges {
  /** {@code "\0"} as both key and range end: every key (etcdctl get --from-key ""). */
  private static final ByteString ALL = ByteString.copyFrom(new byte[] {0});

  private final EtcdMember member;

  MemberMetricsGauges(EtcdMember member) {
    this.member = member;
  }

  @Override
  public boolean hasLeader() {
    return member.hasLeader();
  }

  @Override
  public long committedIndex() {
    return member.raftStatus().committedIndex();
  }

  @Override
  public long appliedIndex() {
    return member.store().appliedIndex();
  }

  /** Not known to the API layer yet: the Raft member's proposals in flight (wiring in server/). */
  @Override
  public long pendingProposals() {
    return 0;
  }

  @Override
  public long quotaBackendBytes() {
    return member.quotaBackendBytes();
  }

  @Override
  public long dbTotalSize() {
    return member.store().dbSize();
  }

  @Override
  public long dbTotalSizeInUse() {
    return member.store().dbSizeInUse();
  }

  /** A count-only range over every key at the current revision: O(keys), paid per scrape only. */
  @Override
  public long keysTotal() {
    return member.store().range(ALL, ALL, 0, 0, true).count();
  }

  @Override
  public String serverVersion() {
    return member.serverVersion();
  }
}
