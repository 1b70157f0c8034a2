package io.akkaetcd.api.pipeline;

import io.akkaetcd.errors.EtcdError;
import java.util.Set;

/** The stages of etcd's gRPC interceptors and auth, in the pipeline's terms. */
final class Stages {
  private Stages() {}

  /** What a learner serves (etcd's isRPCSupportedForLearner); KvService refuses a linearizable Range. */
  static final Set<String> LEARNER_SERVES = Set.of(Methods.RANGE, Methods.STATUS);

  /** etcd's learner check: a learner refuses every RPC but Range and Status. */
  static Stage learnerRefusal(MemberGate member) {
    return (call, request) -> {
      if (member.isLearner() && !LEARNER_SERVES.contains(call.method())) {
        throw EtcdError.NOT_SUPPORTED_FOR_LEARNER.exception();
      }
    };
  }

  /**
   * etcd's WithRequireLeader: a client that sent {@code hasleader: true} is not served by a
   * member without a leader.
   */
  static Stage requireLeader(MemberGate member) {
    return (call, request) -> {
      if ("true".equals(call.metadata("hasleader")) && !member.hasLeader()) {
        throw EtcdError.NO_LEADER.exception();
      }
    };
  }

  static Stage authenticate(Authenticator authenticator) {
    return (call, request) -> call.authenticated(authenticator.authenticate(call));
  }

  static Stage authorize(Authorizer authorizer) {
    return authorizer::authorize;
  }
}
