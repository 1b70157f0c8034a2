package io.akkaetcd.api;

import com.google.protobuf.ByteString;
import io.akkaetcd.metrics.MemberGauges;
import java.util.function.LongSupplier;

/**
 * etcd's gauges read from a member at scrape time; what the API cannot see of the member (its
 * proposals in flight, its Raft inbox, its watch streams) is handed in by the member's wiring.
 */
public final class MemberMetricsGauges implements MemberGauges {
  /** {@code "\0"} as both key and range end: every key (etcdctl get --from-key ""). */
  private static final ByteString ALL = ByteString.copyFrom(new byte[] {0});

  private final EtcdMember member;
  private final LongSupplier pending;
  private final LongSupplier inboxDepth;
  private final LongSupplier watchStreams;

  public MemberMetricsGauges(EtcdMember member, LongSupplier pending, LongSupplier inboxDepth,
      LongSupplier watchStreams) {
    this.member = member;
    this.pending = pending;
    this.inboxDepth = inboxDepth;
    this.watchStreams = watchStreams;
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

  @Override
  public long pendingProposals() {
    return pending.getAsLong();
  }

  @Override
  public long raftInboxDepth() {
    return inboxDepth.getAsLong();
  }

  @Override
  public long watchStreams() {
    return watchStreams.getAsLong();
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
