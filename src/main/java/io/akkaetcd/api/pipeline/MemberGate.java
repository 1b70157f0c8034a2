package io.akkaetcd.api.pipeline;

import java.util.concurrent.CompletionStage;

/** What the pipeline's own stages ask of the member (the API's {@code EtcdMember} is one). */
public interface MemberGate {
  /** Completes once the member serves clients (etcd's ReadyNotify). */
  CompletionStage<Void> ready();

  /** Whether this member is a learner: it serves only serializable reads and Status. */
  boolean isLearner();

  /** Whether this member knows a leader. */
  boolean hasLeader();
}
