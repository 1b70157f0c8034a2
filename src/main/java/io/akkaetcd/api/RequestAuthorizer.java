package io.akkaetcd.api;

import com.google.protobuf.ByteString;
import io.akkaetcd.api.pipeline.Authorizer;
import io.akkaetcd.api.pipeline.Call;
import io.akkaetcd.api.pipeline.Methods;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.apply.KvApplier;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.auth.RequestChecks;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.errors.PlainError;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.proto.etcdserverpb.LeaseKeepAliveRequest;
import io.akkaetcd.proto.etcdserverpb.LeaseTimeToLiveRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.util.List;
import java.util.Set;

/**
 * etcd 3.4's checks on the serving member: a Range and a read-only Txn against the caller's
 * permissions, and the admin RPCs of Maintenance and Cluster for root (etcd's
 * authMaintenanceServer and checkMembershipOperationPermission). Writes and the Auth RPCs are
 * checked when their entry is applied ({@link AuthApplier}); a watch when it is created
 * ({@link WatchService}).
 *
 * <p>With the strict matrix (etcd 3.5.28's fixes, behind akka-etcd's
 * {@code --experimental-strict-auth-matrix}) Compact, Alarm, Status, MoveLeader and MemberList
 * need root too, every lease RPC needs a user, TimeToLive READ on the lease's keys and each
 * KeepAlive request WRITE on them, and a txn's nested txns are checked as it is (a write txn's
 * here, before its proposal; its top level again at apply).
 */
final class RequestAuthorizer implements Authorizer {
  /**
   * The Maintenance RPCs only root may make while auth is on (etcd 3.4 and 3.5's
   * authMaintenanceServer). Their refusal is the auth store's plain Go error, which grpc-go sends
   * as Unknown: "auth: permission denied", not the "etcdserver: permission denied" of other RPCs.
   */
  static final Set<String> MAINTENANCE_ROOT_ONLY = Set.of(
      Methods.of("etcdserverpb.Maintenance", "Defragment"), Methods.of("etcdserverpb.Maintenance", "Snapshot"),
      Methods.of("etcdserverpb.Maintenance", "Hash"), Methods.of("etcdserverpb.Maintenance", "HashKV"));

  /** The other RPCs only root may make while auth is on (etcd 3.4), refused with etcd's gRPC errors. */
  static final Set<String> ROOT_ONLY = Set.of(
      Methods.of("etcdserverpb.Cluster", "MemberAdd"), Methods.of("etcdserverpb.Cluster", "MemberRemove"),
      Methods.of("etcdserverpb.Cluster", "MemberUpdate"), Methods.of("etcdserverpb.Cluster", "MemberPromote"));

  /** The RPCs etcd 3.5.28 also keeps to root, unchecked in 3.4. */
  static final Set<String> STRICT_ROOT_ONLY = Set.of(Methods.COMPACT, Methods.STATUS, Methods.MEMBER_LIST,
      Methods.of("etcdserverpb.Maintenance", "Alarm"), Methods.of("etcdserverpb.Maintenance", "MoveLeader"));

  /** The lease RPCs that need a user under the strict matrix (unchecked in 3.4 but LeaseRevoke's keys). */
  static final Set<String> STRICT_USER = Set.of(Methods.LEASE_GRANT, Methods.LEASE_REVOKE,
      Methods.LEASE_KEEP_ALIVE, Methods.LEASE_TIME_TO_LIVE, Methods.LEASE_LEASES);

  private final AuthApplier auth;
  private final boolean strict;
  private final Lessor lessor;

  RequestAuthorizer(AuthApplier auth, boolean strict, Lessor lessor) {
    this.auth = auth;
    this.strict = strict;
    this.lessor = lessor;
  }

  @Override
  public void authorize(Call call, Object request) {
    AuthState state = auth.state();
    if (!state.enabled()) {
      return;
    }
    if (request instanceof RangeRequest r) {
      RequestChecks.range(state, call.authInfo(), r);
    } else if (request instanceof TxnRequest t && strict) {
      RequestChecks.txnWithNested(state, call.authInfo(), t);
    } else if (request instanceof TxnRequest t && KvApplier.isReadOnly(t)) {
      RequestChecks.txn(state, call.authInfo(), t);
    } else if (ROOT_ONLY.contains(call.method())) {
      state.checkAdmin(call.authInfo());
    } else if (MAINTENANCE_ROOT_ONLY.contains(call.method())) {
      try {
        state.checkAdmin(call.authInfo());
      } catch (EtcdException e) {
        throw new PlainError(e.error().text().replaceFirst("^etcdserver: ", "auth: "));
      }
    } else if (strict) {
      authorizeStrict(state, call, request);
    }
  }

  private void authorizeStrict(AuthState state, Call call, Object request) {
    if (STRICT_ROOT_ONLY.contains(call.method())) {
      state.checkAdmin(call.authInfo());
    } else if (STRICT_USER.contains(call.method())) {
      state.checkUser(call.authInfo());
      if (request instanceof LeaseTimeToLiveRequest ttl) {
        RequestChecks.leaseRead(state, call.authInfo(), leaseKeys(ttl.getID()));
      } else if (request instanceof LeaseKeepAliveRequest renew) {
        RequestChecks.leaseKeepAlive(state, call.authInfo(), leaseKeys(renew.getID()));
      }
    }
  }

  /** Under the strict matrix each KeepAlive request is checked, not only the stream's opening. */
  @Override
  public boolean checksEachRequest(String method) {
    return strict && Methods.LEASE_KEEP_ALIVE.equals(method);
  }

  /** The keys attached to the lease in this member's applied lessor; none for an unknown lease. */
  private List<ByteString> leaseKeys(long id) {
    return lessor.get(id).map(lease -> List.copyOf(lease.keys())).orElse(List.of());
  }
}
