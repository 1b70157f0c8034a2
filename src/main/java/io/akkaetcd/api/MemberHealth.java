package io.akkaetcd.api;

import com.google.protobuf.ByteString;
import io.akkaetcd.api.health.HealthProbe;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A member as the health checks see it: its alarms, its leader, a quorum and a local read. */
final class MemberHealth implements HealthProbe {
  private static final ByteString ALL = ByteString.copyFrom(new byte[] {0});
  private final EtcdMember member;

  MemberHealth(EtcdMember member) {
    this.member = member;
  }

  @Override
  public List<String> alarms() {
    return member.alarms().get(AlarmType.NONE).stream().map(a -> a.getAlarm().name()).toList();
  }

  @Override
  public boolean hasLeader() {
    return member.hasLeader();
  }

  @Override
  public CompletionStage<Void> linearizableRead() {
    return member.linearizableBarrier().thenRunAsync(this::readOne, member.readExecutor());
  }

  @Override
  public CompletionStage<Void> serializableRead() {
    return CompletableFuture.runAsync(this::readOne, member.readExecutor());
  }

  /** etcd's check reads RangeRequest{KeysOnly, Limit: 1}. */
  private void readOne() {
    member.store().range(ALL, ALL, 0, 1, false);
  }
}
