package io.akkaetcd.api;

import io.akkaetcd.errors.EtcdFailures;
import akka.NotUsed;
import akka.stream.javadsl.Source;
import io.akkaetcd.alarm.Alarms;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.AlarmType;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmRequest;
import io.akkaetcd.proto.etcdserverpb.AlarmResponse;
import io.akkaetcd.proto.etcdserverpb.DefragmentRequest;
import io.akkaetcd.proto.etcdserverpb.DefragmentResponse;
import io.akkaetcd.proto.etcdserverpb.DowngradeRequest;
import io.akkaetcd.proto.etcdserverpb.DowngradeResponse;
import io.akkaetcd.proto.etcdserverpb.HashKVRequest;
import io.akkaetcd.proto.etcdserverpb.HashKVResponse;
import io.akkaetcd.proto.etcdserverpb.HashRequest;
import io.akkaetcd.proto.etcdserverpb.HashResponse;
import io.akkaetcd.proto.etcdserverpb.Maintenance;
import io.akkaetcd.proto.etcdserverpb.MoveLeaderRequest;
import io.akkaetcd.proto.etcdserverpb.MoveLeaderResponse;
import io.akkaetcd.proto.etcdserverpb.SnapshotRequest;
import io.akkaetcd.proto.etcdserverpb.SnapshotResponse;
import io.akkaetcd.proto.etcdserverpb.StatusRequest;
import io.akkaetcd.proto.etcdserverpb.StatusResponse;
import io.akkaetcd.raft.member.RaftStatus;
import com.google.protobuf.ByteString;
import io.akkaetcd.bbolt.EtcdExport;
import io.akkaetcd.cluster.ClusterMembers;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * etcd's Maintenance service: what `etcdctl endpoint status|hashkv` and operators need.
 * Snapshot streams the store as etcd's bbolt file ({@link SnapshotStream}); Downgrade answers
 * UNIMPLEMENTED.
 */
public final class MaintenanceService implements Maintenance {
  private final EtcdMember member;

  public MaintenanceService(EtcdMember member) {
    this.member = member;
  }

  @Override
  public CompletionStage<StatusResponse> status(StatusRequest in) {
    return async(() -> {
      RaftStatus raft = member.raftStatus();
      KvStore store = member.store();
      StatusResponse.Builder resp = StatusResponse.newBuilder();
      // etcd lists in errors a missing leader, then every raised alarm.
      if (raft.leader() == 0) {
        resp.addErrors(EtcdError.NO_LEADER.text());
      }
      member.alarms().get(AlarmType.NONE).forEach(a -> resp.addErrors(Alarms.describe(a)));
      return resp
          .setHeader(member.header(store.currentRevision()))
          .setVersion(member.serverVersion())
          .setDbSize(store.dbSize())
          .setDbSizeInUse(store.dbSizeInUse())
          .setLeader(raft.leader())
          .setRaftIndex(raft.committedIndex())
          .setRaftTerm(raft.term())
          .setRaftAppliedIndex(store.appliedIndex())
          .setIsLearner(false)
          .build();
    });
  }

  @Override
  public CompletionStage<HashResponse> hash(HashRequest in) {
    // The hash of all history this member holds: the same data gives the same hash on any member.
    return async(() -> {
      KvStore.HashResult h = member.store().hashKV(0);
      return HashResponse.newBuilder().setHeader(member.header(h.revision())).setHash(h.hash()).build();
    });
  }

  @Override
  public CompletionStage<HashKVResponse> hashKV(HashKVRequest in) {
    return async(() -> {
      KvStore.HashResult h = member.store().hashKV(in.getRevision());
      // etcd's header carries the current revision, whatever revision was hashed
      return HashKVResponse.newBuilder()
          .setHeader(member.header(member.store().currentRevision()))
          .setHash(h.hash())
          .setCompactRevision(h.compactRevision())
          .build();
    });
  }

  /** Every action, listing included, goes through Raft and is answered as applied (etcd 3.4), without a header. */
  @Override
  public CompletionStage<AlarmResponse> alarm(AlarmRequest in) {
    return EtcdFailures.guarded(() -> member.propose(InternalRaftRequest.newBuilder().setAlarm(in))
        .thenApply(r -> (AlarmResponse) r));
  }

  /** Compacts the store's files down to the data held; etcd 3.4 answers it without a header. */
  @Override
  public CompletionStage<DefragmentResponse> defragment(DefragmentRequest in) {
    return EtcdFailures.guarded(() -> member.store().defragment()
        .thenApply(v -> DefragmentResponse.getDefaultInstance()));
  }

  @Override
  public Source<SnapshotResponse, NotUsed> snapshot(SnapshotRequest in) {
    return SnapshotStream.of(() -> member.store().backup(), clusterRows(), member.members().self().toString(),
        this::savePacer);
  }

  /** The same stream with each message in its wire bytes, for gRPC ({@link SnapshotStream#encoded}). */
  Source<EncodedMessage, NotUsed> snapshotEncoded(SnapshotRequest in) {
    return SnapshotStream.encoded(() -> member.store().backup(), clusterRows(), member.members().self().toString(),
        this::savePacer);
  }

  /** A new save's pacer, over the applied index of the store the member holds then. */
  private SavePacer savePacer() {
    return SavePacer.configured(() -> member.store().appliedIndex());
  }

  /**
   * What etcd's "members" and "cluster" buckets hold (etcdserver/api/membership/store.go): the
   * member's hex id → its JSON, and the cluster version. etcdctl's restore replaces the members.
   */
  private List<EtcdExport.Row> clusterRows() {
    List<EtcdExport.Row> rows = new ArrayList<>();
    for (ClusterMembers.Member m : member.members().members()) {
      StringBuilder json = new StringBuilder("{\"id\":").append(Long.toUnsignedString(m.id().value()))
          .append(",\"peerURLs\":").append(jsonStrings(m.peerUrls()));
      if (m.learner()) {
        json.append(",\"isLearner\":true");
      }
      String name = member.name(m);
      if (name != null && !name.isEmpty()) {
        json.append(",\"name\":").append(jsonString(name));
      }
      List<URI> clientUrls = member.clientUrls(m);
      if (!clientUrls.isEmpty()) {
        json.append(",\"clientURLs\":").append(jsonStrings(clientUrls));
      }
      rows.add(new EtcdExport.Row("members", ByteString.copyFromUtf8(Long.toHexString(m.id().value())),
          ByteString.copyFromUtf8(json.append('}').toString())));
    }
    rows.add(new EtcdExport.Row("cluster", ByteString.copyFromUtf8("clusterVersion"),
        ByteString.copyFromUtf8(member.clusterVersion())));
    return rows;
  }

  private static String jsonStrings(List<URI> urls) {
    StringJoiner out = new StringJoiner(",", "[", "]");
    urls.forEach(u -> out.add(jsonString(u.toString())));
    return out.toString();
  }

  private static String jsonString(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  @Override
  public CompletionStage<MoveLeaderResponse> moveLeader(MoveLeaderRequest in) {
    return EtcdFailures.guarded(() -> member.moveLeader(in.getTargetID())
        .thenApply(v -> MoveLeaderResponse.newBuilder().setHeader(member.header(member.store().currentRevision())).build()));
  }

  @Override
  public CompletionStage<DowngradeResponse> downgrade(DowngradeRequest in) {
    return CompletableFuture.failedFuture(GrpcErrors.unimplemented("/etcdserverpb.Maintenance/Downgrade"));
  }

  private <T> CompletionStage<T> async(Supplier<T> body) {
    return CompletableFuture.supplyAsync(body, member.readExecutor());
  }
}
