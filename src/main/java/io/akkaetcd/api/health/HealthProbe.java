package io.akkaetcd.api.health;

import java.util.List;
import java.util.concurrent.CompletionStage;

/** What the health checks read of a member; the API layer adapts its member to it. */
public interface HealthProbe {

  /** The alarms raised in the cluster as this member applied them, by etcd's names (NOSPACE, CORRUPT). */
  List<String> alarms();

  /** Whether this member knows a leader (etcd's Leader() != raft.None). */
  boolean hasLeader();

  /** A quorum read (ReadIndex): completes once it could be served, or fails with etcd's error. */
  CompletionStage<Void> linearizableRead();

  /** A local read of the backend, as a serializable Range serves it. */
  CompletionStage<Void> serializableRead();
}
