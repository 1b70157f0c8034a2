package io.akkaetcd.api;

import io.akkaetcd.api.pipeline.Authorizer;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.auth.RequestChecks;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.util.Set;

/**
 * etcd 3.4's checks on the serving member: a Range and a read-only Txn against the caller's
 * permissions, and the admin RPCs of Maintenance and Cluster for root (etcd's
 * authMaintenanceServer and checkMembershipOperationPermission). Writes and the Auth RPCs are
 * checked when their entry is applied ({@link AuthApplier}); a watch when it is created
 * ({@link WatchService}).
 */
final class RequestAuthorizer implements Authorizer {
  /** The RPCs only root may make while auth is on (etcd 3.4). */
  static final Set<String> ROOT_ONLY = Set.of(
      Methods.of("etcdserverpb.Maintenance", "Defragment"), Methods.of("etcdserverpb.Maintenance", "Snapshot"),
      Methods.of("etcdserverpb.Maintenance", "Hash"), Methods.of("etcdserverpb.Maintenance", "HashKV"),
      Methods.of("etcdserverpb.Cluster", "MemberAdd"), Methods.of("etcdserverpb.Cluster", "MemberRemove"),
      Methods.of("etcdserverpb.Cluster", "MemberUpdate"), Methods.of("etcdserverpb.Cluster", "MemberPromote"));

  private final AuthApplier auth;

  RequestAuthorizer(AuthApplier auth) {
    this.auth = auth;
  }

  @Override
  public void authorize(Call call, Object request) {
    AuthState state = auth.state();
    if (!state.enabled()) {
      return;
    }
    if (request instanceof RangeRequest r) {
      RequestChecks.range(state, call.authInfo(), r);
    } else if (request instanceof TxnRequest t && KvApplier.isReadOnly(t)) {
      RequestChecks.txn(state, call.authInfo(), t);
    } else if (ROOT_ONLY.contains(call.method())) {
      state.checkAdmin(call.authInfo());
    }
  }
}
