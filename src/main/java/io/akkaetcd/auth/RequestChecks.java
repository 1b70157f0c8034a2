package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.errors.EtcdException;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * etcd 3.4's permission matrix per request kind (etcdserver/apply_auth.go and v3_server.go), on
 * an {@link AuthState}: each method returns when the request may run and throws etcd's error
 * otherwise. Pure: the caller supplies the keys attached to a lease.
 */
public final class RequestChecks {
  private static final ByteString NONE = ByteString.EMPTY;

  /** The entries etcd's applier lets only root apply (needAdminPermission). */
  private static final Set<InternalRaftRequest.RequestCase> ADMIN = Set.of(
      InternalRaftRequest.RequestCase.AUTH_ENABLE, InternalRaftRequest.RequestCase.AUTH_DISABLE,
      InternalRaftRequest.RequestCase.AUTH_USER_ADD, InternalRaftRequest.RequestCase.AUTH_USER_DELETE,
      InternalRaftRequest.RequestCase.AUTH_USER_CHANGE_PASSWORD, InternalRaftRequest.RequestCase.AUTH_USER_GRANT_ROLE,
      InternalRaftRequest.RequestCase.AUTH_USER_REVOKE_ROLE, InternalRaftRequest.RequestCase.AUTH_ROLE_ADD,
      InternalRaftRequest.RequestCase.AUTH_ROLE_GRANT_PERMISSION,
      InternalRaftRequest.RequestCase.AUTH_ROLE_REVOKE_PERMISSION, InternalRaftRequest.RequestCase.AUTH_ROLE_DELETE,
      InternalRaftRequest.RequestCase.AUTH_USER_LIST, InternalRaftRequest.RequestCase.AUTH_ROLE_LIST);

  private RequestChecks() {}

  /** Whether the entry needs root (checked with {@link AuthState#checkAdmin} before it applies). */
  public static boolean needsAdmin(InternalRaftRequest.RequestCase kind) {
    return ADMIN.contains(kind);
  }

  /** Range: READ on its range. */
  public static void range(AuthState s, AuthInfo who, RangeRequest r) {
    s.checkPermitted(who, r.getKey(), r.getRangeEnd(), PermType.READ);
  }

  /**
   * Put: WRITE on the key, then WRITE on every key already attached to its lease, then READ on
   * the key with prev_kv.
   */
  public static void put(AuthState s, AuthInfo who, PutRequest r, Collection<ByteString> leaseKeys) {
    s.checkPermitted(who, r.getKey(), NONE, PermType.WRITE);
    writeAll(s, who, leaseKeys);
    if (r.getPrevKv()) {
      s.checkPermitted(who, r.getKey(), NONE, PermType.READ);
    }
  }

  /** DeleteRange: WRITE on its range, then READ on it with prev_kv. */
  public static void deleteRange(AuthState s, AuthInfo who, DeleteRangeRequest r) {
    s.checkPermitted(who, r.getKey(), r.getRangeEnd(), PermType.WRITE);
    if (r.getPrevKv()) {
      s.checkPermitted(who, r.getKey(), r.getRangeEnd(), PermType.READ);
    }
  }

  /**
   * Txn (checkTxnAuth): READ on every compare's range, then the success ops, then the failure
   * ops, both whatever the compares will say. Inside a txn a put needs only WRITE on its key, a
   * delete READ (with prev_kv) then WRITE; a nested txn is not looked into (etcd before 3.5.28).
   */
  public static void txn(AuthState s, AuthInfo who, TxnRequest r) {
    txn(s, who, r, false);
  }

  /**
   * Txn as etcd 3.5.28 checks it: {@link #txn(AuthState, AuthInfo, TxnRequest)}, with each nested
   * txn checked the same way where it stands among its branch's ops, at any depth.
   */
  public static void txnWithNested(AuthState s, AuthInfo who, TxnRequest r) {
    txn(s, who, r, true);
  }

  private static void txn(AuthState s, AuthInfo who, TxnRequest r, boolean nested) {
    for (Compare c : r.getCompareList()) {
      s.checkPermitted(who, c.getKey(), c.getRangeEnd(), PermType.READ);
    }
    ops(s, who, r.getSuccessList(), nested);
    ops(s, who, r.getFailureList(), nested);
  }

  private static void ops(AuthState s, AuthInfo who, List<RequestOp> ops, boolean nested) {
    for (RequestOp op : ops) {
      switch (op.getRequestCase()) {
        case REQUEST_TXN -> {
          if (nested) {
            txn(s, who, op.getRequestTxn(), true);
          }
        }
        case REQUEST_RANGE -> range(s, who, op.getRequestRange());
        case REQUEST_PUT -> s.checkPermitted(who, op.getRequestPut().getKey(), NONE, PermType.WRITE);
        case REQUEST_DELETE_RANGE -> {
          DeleteRangeRequest d = op.getRequestDeleteRange();
          if (d.getPrevKv()) {
            s.checkPermitted(who, d.getKey(), d.getRangeEnd(), PermType.READ);
          }
          s.checkPermitted(who, d.getKey(), d.getRangeEnd(), PermType.WRITE);
        }
        default -> { }
      }
    }
  }

  /** LeaseRevoke: WRITE on every key attached to the lease. */
  public static void leaseRevoke(AuthState s, AuthInfo who, Collection<ByteString> leaseKeys) {
    writeAll(s, who, leaseKeys);
  }

  /** LeaseKeepAlive (etcd 3.5.28, as LeaseRevoke): WRITE on every key attached to the lease. */
  public static void leaseKeepAlive(AuthState s, AuthInfo who, Collection<ByteString> leaseKeys) {
    writeAll(s, who, leaseKeys);
  }

  /** LeaseTimeToLive (etcd 3.4.26+, 3.5.9+): READ on every key attached to the lease. */
  public static void leaseRead(AuthState s, AuthInfo who, Collection<ByteString> leaseKeys) {
    for (ByteString key : leaseKeys) {
      s.checkPermitted(who, key, NONE, PermType.READ);
    }
  }

  private static void writeAll(AuthState s, AuthInfo who, Collection<ByteString> keys) {
    for (ByteString key : keys) {
      s.checkPermitted(who, key, NONE, PermType.WRITE);
    }
  }

  /** UserGet: root, or the user asking about itself. */
  public static void userGet(AuthState s, AuthInfo who, String name) {
    try {
      s.checkAdmin(who);
    } catch (EtcdException e) {
      if (!name.equals(who == null ? "" : who.username())) {
        throw e;
      }
    }
  }

  /** RoleGet: root, or a user holding the role. */
  public static void roleGet(AuthState s, AuthInfo who, String role) {
    try {
      s.checkAdmin(who);
    } catch (EtcdException e) {
      User user = who == null ? null : s.users().get(who.username());
      if (user == null || !user.hasRole(role)) {
        throw e;
      }
    }
  }
}
