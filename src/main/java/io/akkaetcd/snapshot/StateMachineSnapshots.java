package io.akkaetcd.snapshot;

import io.akkaetcd.mvcc.IncomingStore;
import io.akkaetcd.mvcc.StoreExport;
import io.akkaetcd.proto.peerpb.MemberEntry;
import io.akkaetcd.proto.peerpb.PublishedAttributes;
import io.akkaetcd.proto.peerpb.SnapshotChunk;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What snapshot transfers need of a member's state machine (the MVCC store with the membership
 * and the members' published attributes, which change with it through Raft).
 */
public interface StateMachineSnapshots {

  /**
   * The applied state at one point: a store export and the membership as of its last applied
   * entry. The caller closes the export.
   */
  record Capture(StoreExport export, List<MemberEntry> members, List<PublishedAttributes> attributes) {}

  /** Captures the applied state between two applied batches. */
  CompletionStage<Capture> capture();

  /** The raft index the state machine has applied: a snapshot must be ahead of it to be taken. */
  long appliedIndex();

  /** Starts receiving a store (beside the live one). */
  IncomingStore receive();

  /**
   * Replaces the state machine by a received one: {@code first} is the transfer's first chunk
   * (where it ends, its membership), {@code store} the finished store. Completes once it is
   * installed and the raft log was told; fails, changing nothing, if the state machine has caught
   * up with the snapshot meanwhile.
   */
  CompletionStage<Void> install(SnapshotChunk first, Path store);
}
