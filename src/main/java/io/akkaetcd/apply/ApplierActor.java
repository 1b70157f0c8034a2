package io.akkaetcd.apply;

import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.logs.GoDurations;
import net.logstash.logback.argument.StructuredArguments;
import io.akkaetcd.wait.ResponseBatch;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.raft.Entry;
import io.akkaetcd.raft.EntryType;
import io.akkaetcd.wait.AppliedIndexWait;
import io.akkaetcd.wait.Wait;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.LongConsumer;
import io.akkaetcd.proto.raftpb.ConfChange;

/**
 * Applies committed raft entries to the MVCC store, strictly in log order, one LevelDB write batch
 * per batch of entries (with the applied index in the same batch).
 *
 * <p>Invariants: the only writer of the store; an entry at or below the store's applied index is
 * skipped (it was applied before a restart), so nothing is applied twice; a client is answered
 * only after its entry's effects are committed and visible to readers; the applied index is
 * published after the batch is written, which is what linearizable reads wait for.
 */
public final class ApplierActor extends AbstractBehavior<ApplierActor.Command> {

  public sealed interface Command {}

  /** Committed entries from the raft member, in log order. */
  public record Apply(List<Entry> entries) implements Command {}

  /**
   * A task that needs the store, the membership and the lessor quiet: it runs between batches, on
   * the applier's thread (a snapshot is taken or installed so).
   */
  public record Exclusive(Runnable task) implements Command {}

  /** How a decoded request is applied: returns the response, or a stage for a deferred one. */
  @FunctionalInterface
  public interface RequestApplier {
    Object apply(KvStore store, long index, InternalRaftRequest request);

    /** An empty entry was applied: a leader's first of its term (etcd promotes the lessor then). */
    default void emptyEntryApplied(long term) {}
  }

  public static Behavior<Command> create(KvStore store, RequestApplier requests,
      Function<ConfChange, Object> confChanges, Wait wait, AppliedIndexWait applied, LongConsumer revisionCommitted) {
    return Behaviors.setup(ctx -> new ApplierActor(ctx, store, requests, confChanges, wait, applied, revisionCommitted));
  }

  /** InternalRaftRequest.ID: field 1, varint. */
  private static final byte ID_TAG = 1 << 3;

  private final KvStore store;
  private final RequestApplier requests;
  private final Function<ConfChange, Object> confChanges;
  private final Wait wait;
  private final AppliedIndexWait applied;
  private final LongConsumer revisionCommitted;

  private ApplierActor(ActorContext<Command> ctx, KvStore store, RequestApplier requests,
      Function<ConfChange, Object> confChanges, Wait wait, AppliedIndexWait applied, LongConsumer revisionCommitted) {
    super(ctx);
    this.confChanges = confChanges;
    this.revisionCommitted = revisionCommitted;
    this.store = store;
    this.requests = requests;
    this.wait = wait;
    this.applied = applied;
    com.typesafe.config.Config config = ctx.getSystem().settings().config();
    this.warnApplyNanos = (config.hasPath(WARN_APPLY_DURATION) ? config.getDuration(WARN_APPLY_DURATION)
        : java.time.Duration.ofMillis(100)).toNanos();
  }

  /** etcd's warnApplyDuration (100 ms, --experimental-warning-apply-duration in 3.5); hidden here. */
  private static final String WARN_APPLY_DURATION = "akka-etcd.warn-apply-duration";
  private final long warnApplyNanos;

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Apply.class, this::onApply)
        .onMessage(Exclusive.class, e -> {
          e.task().run();
          return this;
        })
        .build();
  }

  private Behavior<Command> onApply(Apply apply) {
    List<Runnable> replies = new ArrayList<>();
    long last = store.appliedIndex();
    for (Entry e : apply.entries()) {
      if (e.index() <= last) {
        continue;
      }
      last = e.index();
      if (e.type() == EntryType.CONF_CHANGE) {
        applyConfChange(e, replies);
        store.setApplied(e.index(), e.term());
        continue;
      }
      if (e.data().isEmpty()) {
        store.setApplied(e.index(), e.term());
        requests.emptyEntryApplied(e.term());
        continue;
      }
      InternalRaftRequest request;
      try {
        request = request(e.data());
      } catch (InvalidProtocolBufferException ex) {
        getContext().getLog().error("entry {} is not a request; skipped", e.index(), ex);
        store.setApplied(e.index(), e.term());
        continue;
      }
      long id = request.getId();
      long start = System.nanoTime();
      try {
        Object response = requests.apply(store, e.index(), request);
        replies.add(() -> reply(id, response));
      } catch (EtcdException ex) {
        // Validation failed before anything was written: the entry is applied as a no-op.
        replies.add(() -> wait.fail(id, ex));
      }
      warnIfSlow(start, request);
      // Every entry is recorded as applied here, whatever it did, in the batch being written.
      store.setApplied(e.index(), e.term());
    }
    long revisionBefore = store.currentRevision();
    store.commitBatch();
    applied.advance(last);
    if (store.currentRevision() != revisionBefore) {
      revisionCommitted.accept(store.currentRevision());
    }
    // The batch's responses reach the connections (on the default dispatcher) together, and each
    // connection writes its own in one go.
    ResponseBatch.deliverTogether(() -> replies.forEach(Runnable::run), getContext().getSystem().executionContext());
    return this;
  }

  /**
   * The entry's request: the proposer's own object when this member proposed it (the same bytes,
   * {@link Wait#proposed}), else parsed. A proposal encodes its id (field 1) first.
   */
  private InternalRaftRequest request(ByteString data) throws InvalidProtocolBufferException {
    if (!data.isEmpty() && data.byteAt(0) == ID_TAG) {
      try {
        CodedInputStream in = data.newCodedInput();
        in.readTag();
        if (wait.proposed(in.readUInt64(), data) instanceof InternalRaftRequest proposed) {
          return proposed;
        }
      } catch (java.io.IOException malformed) {
        // not a proposal's encoding: the parse below reports it
      }
    }
    return InternalRaftRequest.parseFrom(data);
  }

  /**
   * etcd's warnOfExpensiveRequest: "apply request took too long" once a request's apply took
   * warnApplyDuration or more. The request is named by its kind only: never values in logs.
   */
  private void warnIfSlow(long startNanos, InternalRaftRequest request) {
    long took = System.nanoTime() - startNanos;
    if (took >= warnApplyNanos) {
      getContext().getLog().warn("apply request took too long {} {} {}",
          StructuredArguments.kv("took", GoDurations.format(took)),
          StructuredArguments.kv("expected-duration", GoDurations.format(warnApplyNanos)),
          StructuredArguments.kv("request", request.getRequestCase().name().toLowerCase(java.util.Locale.ROOT)));
    }
  }

  /** A membership change: recorded (durably) before this batch marks it applied, then answered. */
  private void applyConfChange(Entry e, List<Runnable> replies) {
    try {
      ConfChange cc = ConfChange.parseFrom(e.data());
      Object response = confChanges.apply(cc);
      replies.add(() -> reply(cc.getRequestId(), response));
    } catch (InvalidProtocolBufferException ex) {
      getContext().getLog().error("entry {} is not a configuration change; skipped", e.index(), ex);
    }
  }

  private void reply(long id, Object response) {
    if (response instanceof CompletionStage<?> stage) {
      stage.whenComplete((r, err) -> {
        if (err != null) {
          wait.fail(id, err);
        } else {
          wait.trigger(id, r);
        }
      });
    } else {
      wait.trigger(id, response);
    }
  }
}
