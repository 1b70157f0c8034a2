package io.akkaetcd.server;

import io.akkaetcd.apply.ApplierActor;
import akka.actor.typed.ActorRef;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberAttributes;
import io.akkaetcd.cluster.Membership;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.mvcc.IncomingStore;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.peerpb.MemberEntry;
import io.akkaetcd.proto.peerpb.PublishedAttributes;
import io.akkaetcd.proto.peerpb.SnapshotChunk;
import io.akkaetcd.raft.SnapshotPoint;
import io.akkaetcd.raft.member.RaftInbox;
import io.akkaetcd.snapshot.StateMachineSnapshots;
import io.akkaetcd.wait.AppliedIndexWait;
import io.akkaetcd.watch.WatchHub;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A member's state machine as snapshots see it: the MVCC store with the membership and the
 * published attributes. Captures and installs run on the applier ({@link ApplierActor.Exclusive}),
 * so a capture is of one applied point, and an install replaces everything before the next batch.
 *
 * <p>Install order, for crashes: the membership and attributes files first, then the store (one
 * atomic directory swap), then the raft log is told. A crash in between leaves either the old
 * store with the new membership, which the leader fixes with the same snapshot again (membership
 * changes re-applied from the log are idempotent), or the new store, whose applied point the
 * raft member finds ahead of its log at recovery and starts the log after.
 */
final class ServerSnapshots implements StateMachineSnapshots {
  private final MvccStore store;
  private final Path storeDir;
  private final Membership membership;
  private final MemberAttributes attributes;
  private final Lessor lessor;
  private final io.akkaetcd.alarm.Alarms alarms;
  private final io.akkaetcd.apply.AuthApplier auth;
  private final WatchHub hub;
  private final AppliedIndexWait applied;
  private final RaftInbox inbox;
  private final ActorRef<ApplierActor.Command> applier;

  ServerSnapshots(MvccStore store, Path storeDir, Membership membership, MemberAttributes attributes, Lessor lessor,
      io.akkaetcd.alarm.Alarms alarms, io.akkaetcd.apply.AuthApplier auth, WatchHub hub, AppliedIndexWait applied, RaftInbox inbox, ActorRef<ApplierActor.Command> applier) {
    this.store = store;
    this.storeDir = storeDir;
    this.membership = membership;
    this.attributes = attributes;
    this.lessor = lessor;
    this.alarms = alarms;
    this.auth = auth;
    this.hub = hub;
    this.applied = applied;
    this.inbox = inbox;
    this.applier = applier;
  }

  @Override
  public CompletionStage<Capture> capture() {
    return onApplier(done -> {
      List<MemberEntry> members = membership.current().members().stream().map(ClusterMembers::toEntry).toList();
      List<PublishedAttributes> published = attributes.all().entrySet().stream()
          .map(e -> PublishedAttributes.newBuilder().setId(e.getKey()).setName(e.getValue().name())
              .addAllClientUrls(e.getValue().clientUrls().stream().map(URI::toString).toList()).build())
          .toList();
      done.complete(new Capture(store.export(), members, published));
    });
  }

  @Override
  public long appliedIndex() {
    return store.appliedIndex();
  }

  @Override
  public IncomingStore receive() {
    return IncomingStore.create(storeDir);
  }

  @Override
  public CompletionStage<Void> install(SnapshotChunk first, Path received) {
    return onApplier(done -> {
      if (first.getIndex() <= store.appliedIndex()) {
        IncomingStore.discard(received);
        done.completeExceptionally(new IllegalStateException("applied " + store.appliedIndex()
            + " meanwhile, at or past the snapshot's " + first.getIndex()));
        return;
      }
      List<ClusterMembers.Member> members = first.getMembersList().stream()
          .map(m -> ClusterMembers.fromEntry(m, m.getName(), List.of())).toList();
      Map<Long, MemberAttributes.Published> published = new TreeMap<>();
      first.getAttributesList().forEach(a -> published.put(a.getId(),
          new MemberAttributes.Published(a.getName(), a.getClientUrlsList().stream().map(URI::create).toList())));
      attributes.restore(published);
      ClusterMembers now = membership.restore(members);
      store.install(received);
      lessor.reload(store);
      alarms.reload(store);
      auth.reload(store);
      applied.advance(store.appliedIndex());
      hub.committed(store.currentRevision());
      inbox.snapshotInstalled(new RaftInbox.SnapshotInstalled(first.getFrom(), first.getTerm(),
          new SnapshotPoint(first.getIndex(), first.getIndexTerm()), now.voterIds(), now.learnerIds()));
      done.complete(null);
    });
  }

  /** Runs {@code task} on the applier between batches; a task that throws fails the stage. */
  private <T> CompletionStage<T> onApplier(Consumer<CompletableFuture<T>> task) {
    CompletableFuture<T> done = new CompletableFuture<>();
    applier.tell(new ApplierActor.Exclusive(() -> {
      try {
        task.accept(done);
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
        throw e;
      }
    }));
    return done;
  }
}
