package io.akkaetcd.api;

import io.akkaetcd.metrics.MemberGauges;
import io.akkaetcd.raft.StateRole;
import io.akkaetcd.watch.WatchHub;
import java.util.function.LongSupplier;

/**
 * etcd's gauges read from a member at scrape time; what the API cannot see of the member (its
 * proposals in flight, its Raft inbox, its watch streams) is handed in by the member's wiring.
 */
public final class MemberMetricsGauges implements MemberGauges {
  private final EtcdMember member;
  private final LongSupplier pending;
  private final LongSupplier inboxDepth;
  private final WatchHub watches;

  public MemberMetricsGauges(EtcdMember member, LongSupplier pending, LongSupplier inboxDepth, WatchHub watches) {
    this.member = member;
    this.pending = pending;
    this.inboxDepth = inboxDepth;
    this.watches = watches;
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
    return watches.streams();
  }

  @Override
  public long watchers() {
    return watches.stats().watchers();
  }

  @Override
  public long slowWatchers() {
    return watches.stats().slowWatchers();
  }

  @Override
  public long pendingEvents() {
    return watches.stats().pendingEvents();
  }

  @Override
  public long eventsSent() {
    return watches.stats().eventsSent();
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

  /** The store's running count (kept by its applier), as etcd's keysGauge: O(1) per scrape. */
  @Override
  public long keysTotal() {
    return member.store().keysTotal();
  }

  @Override
  public long currentRevision() {
    return member.store().currentRevision();
  }

  @Override
  public long compactRevision() {
    return member.store().compactRevision();
  }

  @Override
  public boolean isLeader() {
    return member.raftStatus().role() == StateRole.LEADER;
  }

  @Override
  public boolean isLearner() {
    return member.isLearner();
  }

  @Override
  public String clusterVersion() {
    String v = member.clusterVersion();
    return v.equals("not_decided") ? "" : v.replaceAll("^(\\d+\\.\\d+).*", "$1");
  }

  @Override
  public long memberId() {
    return member.members().self().value();
  }

  @Override
  public String serverVersion() {
    return member.serverVersion();
  }
}
