package io.akkaetcd.apply;

import com.google.protobuf.ByteString;
import io.akkaetcd.auth.AuthCodec;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.auth.AuthRows;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.auth.RequestChecks;
import io.akkaetcd.auth.TokenProvider;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.mvcc.KvStore;
import io.akkaetcd.proto.etcdserverpb.AuthDisableResponse;
import io.akkaetcd.proto.etcdserverpb.AuthEnableResponse;
import io.akkaetcd.proto.etcdserverpb.AuthRoleAddResponse;
import io.akkaetcd.proto.etcdserverpb.AuthRoleDeleteResponse;
import io.akkaetcd.proto.etcdserverpb.AuthRoleGetResponse;
import io.akkaetcd.proto.etcdserverpb.AuthRoleGrantPermissionResponse;
import io.akkaetcd.proto.etcdserverpb.AuthRoleListResponse;
import io.akkaetcd.proto.etcdserverpb.AuthRoleRevokePermissionResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserAddResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserChangePasswordResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserDeleteResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserGetResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserGrantRoleResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserListResponse;
import io.akkaetcd.proto.etcdserverpb.AuthUserRevokeRoleResponse;
import io.akkaetcd.proto.etcdserverpb.AuthenticateResponse;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The auth store's applier side (etcd's authStore driven by authApplierV3): applies the Auth
 * entries to the published {@link AuthState}, writing the changed rows in the applier's batch
 * (so with the applied index), and checks each client write against the state at apply, with the
 * user and auth revision its entry carries. An entry without a header was proposed by the member
 * itself (lease expiry, compaction, attributes) and acts as root, as etcd's WithRoot.
 *
 * <p>Only the applier changes the state; any thread reads {@link #state()} (one volatile
 * reference to an immutable value). Tokens are assigned and dropped at apply, on every member.
 */
public final class AuthApplier {
  static final List<String> BUCKETS = List.of(AuthCodec.AUTH_BUCKET, AuthCodec.USERS_BUCKET, AuthCodec.ROLES_BUCKET);

  /** The entries this class applies. */
  private static final Set<InternalRaftRequest.RequestCase> AUTH = Set.of(
      InternalRaftRequest.RequestCase.AUTH_ENABLE, InternalRaftRequest.RequestCase.AUTH_DISABLE,
      InternalRaftRequest.RequestCase.AUTHENTICATE, InternalRaftRequest.RequestCase.AUTH_USER_ADD,
      InternalRaftRequest.RequestCase.AUTH_USER_DELETE, InternalRaftRequest.RequestCase.AUTH_USER_GET,
      InternalRaftRequest.RequestCase.AUTH_USER_CHANGE_PASSWORD, InternalRaftRequest.RequestCase.AUTH_USER_GRANT_ROLE,
      InternalRaftRequest.RequestCase.AUTH_USER_REVOKE_ROLE, InternalRaftRequest.RequestCase.AUTH_USER_LIST,
      InternalRaftRequest.RequestCase.AUTH_ROLE_LIST, InternalRaftRequest.RequestCase.AUTH_ROLE_ADD,
      InternalRaftRequest.RequestCase.AUTH_ROLE_DELETE, InternalRaftRequest.RequestCase.AUTH_ROLE_GET,
      InternalRaftRequest.RequestCase.AUTH_ROLE_GRANT_PERMISSION,
      InternalRaftRequest.RequestCase.AUTH_ROLE_REVOKE_PERMISSION);

  private final TokenProvider tokens;
  private volatile AuthState state = AuthState.EMPTY;

  private AuthApplier(TokenProvider tokens) {
    this.tokens = tokens;
  }

  /** The auth state the store records (at start). */
  public static AuthApplier recover(KvStore store, TokenProvider tokens) {
    AuthApplier a = new AuthApplier(tokens);
    a.reload(store);
    return a;
  }

  /** Takes the store's auth state in place of the one held: after a snapshot replaced the store. */
  public void reload(KvStore store) {
    List<AuthRows.Row> rows = new ArrayList<>();
    for (String bucket : BUCKETS) {
      store.bucketRows(bucket).forEach(r -> rows.add(new AuthRows.Row(r.bucket(), r.key(), r.value())));
    }
    AuthState loaded = AuthRows.load(rows);
    if (loaded.enabled()) {
      tokens.enable();
    } else {
      tokens.disable();
    }
    state = loaded;
  }

  /** The state as last applied here. */
  public AuthState state() {
    return state;
  }

  public TokenProvider tokens() {
    return tokens;
  }

  public static boolean isAuth(InternalRaftRequest r) {
    return AUTH.contains(r.getRequestCase());
  }

  /** Who the entry acts for: null for the member's own entries (no header), which act as root. */
  static AuthInfo who(InternalRaftRequest r) {
    return r.hasHeader() ? new AuthInfo(r.getHeader().getUsername(), r.getHeader().getAuthRevision()) : null;
  }

  /**
   * etcd's authApplierV3 checks of a client write at apply, against the state now: a permission
   * revoked, or any auth change, between proposal and apply denies it.
   */
  void checkWrite(InternalRaftRequest r, Lessor lessor) {
    AuthInfo who = who(r);
    AuthState s = state;
    if (who == null || !s.enabled()) {
      return;
    }
    switch (r.getRequestCase()) {
      case PUT -> RequestChecks.put(s, who, r.getPut(), leaseKeys(lessor, r.getPut().getLease()));
      case DELETE_RANGE -> RequestChecks.deleteRange(s, who, r.getDeleteRange());
      case TXN -> RequestChecks.txn(s, who, r.getTxn());
      case LEASE_REVOKE -> RequestChecks.leaseRevoke(s, who, leaseKeys(lessor, r.getLeaseRevoke().getID()));
      default -> { }
    }
  }

  private static Set<ByteString> leaseKeys(Lessor lessor, long lease) {
    return lease == 0 ? Set.of() : lessor.get(lease).map(Lessor.Lease::keys).orElse(Set.of());
  }

  /** Applies an Auth entry; throws etcd's error, leaving state and store as they were. */
  Object apply(KvStore store, long index, InternalRaftRequest r) {
    AuthState before = state;
    AuthInfo who = who(r);
    if (who != null && RequestChecks.needsAdmin(r.getRequestCase())) {
      before.checkAdmin(who);
    }
    Object response;
    AuthState after = before;
    switch (r.getRequestCase()) {
      case AUTH_ENABLE -> {
        after = before.authEnable();
        response = AuthEnableResponse.getDefaultInstance();
      }
      case AUTH_DISABLE -> {
        after = before.authDisable();
        response = AuthDisableResponse.getDefaultInstance();
      }
      case AUTHENTICATE -> {
        before.checkAuthenticate(r.getAuthenticate().getName());
        String token = tokens.assign(r.getAuthenticate().getName(), before.revision(),
            r.getAuthenticate().getSimpleToken(), index);
        response = AuthenticateResponse.newBuilder().setToken(token).build();
      }
      case AUTH_USER_ADD -> {
        var q = r.getAuthUserAdd();
        after = before.userAdd(q.getName(), ByteString.copyFromUtf8(q.getHashedPassword()),
            q.hasOptions() && q.getOptions().getNoPassword());
        response = AuthUserAddResponse.getDefaultInstance();
      }
      case AUTH_USER_DELETE -> {
        after = before.userDelete(r.getAuthUserDelete().getName());
        response = AuthUserDeleteResponse.getDefaultInstance();
      }
      case AUTH_USER_CHANGE_PASSWORD -> {
        var q = r.getAuthUserChangePassword();
        after = before.userChangePassword(q.getName(), ByteString.copyFromUtf8(q.getHashedPassword()));
        response = AuthUserChangePasswordResponse.getDefaultInstance();
      }
      case AUTH_USER_GRANT_ROLE -> {
        after = before.userGrantRole(r.getAuthUserGrantRole().getUser(), r.getAuthUserGrantRole().getRole());
        response = AuthUserGrantRoleResponse.getDefaultInstance();
      }
      case AUTH_USER_REVOKE_ROLE -> {
        after = before.userRevokeRole(r.getAuthUserRevokeRole().getName(), r.getAuthUserRevokeRole().getRole());
        response = AuthUserRevokeRoleResponse.getDefaultInstance();
      }
      case AUTH_USER_GET -> {
        String name = r.getAuthUserGet().getName();
        if (who != null && before.enabled()) {
          RequestChecks.userGet(before, who, name);
        }
        response = AuthUserGetResponse.newBuilder().addAllRoles(before.userGet(name)).build();
      }
      case AUTH_USER_LIST -> response = AuthUserListResponse.newBuilder().addAllUsers(before.userList()).build();
      case AUTH_ROLE_ADD -> {
        after = before.roleAdd(r.getAuthRoleAdd().getName());
        response = AuthRoleAddResponse.getDefaultInstance();
      }
      case AUTH_ROLE_DELETE -> {
        after = before.roleDelete(r.getAuthRoleDelete().getRole());
        response = AuthRoleDeleteResponse.getDefaultInstance();
      }
      case AUTH_ROLE_GET -> {
        String role = r.getAuthRoleGet().getRole();
        if (who != null && before.enabled()) {
          RequestChecks.roleGet(before, who, role);
        }
        response = AuthRoleGetResponse.newBuilder()
            .addAllPerm(before.roleGet(role).stream().map(AuthCodec::toProto).toList()).build();
      }
      case AUTH_ROLE_LIST -> response = AuthRoleListResponse.newBuilder().addAllRoles(before.roleList()).build();
      case AUTH_ROLE_GRANT_PERMISSION -> {
        var q = r.getAuthRoleGrantPermission();
        after = before.roleGrantPermission(q.getName(), q.hasPerm() ? AuthCodec.fromProto(q.getPerm()) : null);
        response = AuthRoleGrantPermissionResponse.getDefaultInstance();
      }
      case AUTH_ROLE_REVOKE_PERMISSION -> {
        var q = r.getAuthRoleRevokePermission();
        after = before.roleRevokePermission(q.getRole(), q.getKey(), q.getRangeEnd());
        response = AuthRoleRevokePermissionResponse.getDefaultInstance();
      }
      default -> throw new IllegalArgumentException("not an auth entry: " + r.getRequestCase());
    }
    if (after != before) {
      for (AuthRows.Row row : AuthRows.diff(before, after)) {
        store.putBucketRow(row.bucket(), row.key(), row.value());
      }
      after.credentialsChangedSince(before).forEach(tokens::invalidateUser);
      if (after.enabled() && !before.enabled()) {
        tokens.enable();
      } else if (!after.enabled() && before.enabled()) {
        tokens.disable();
      }
      state = after;
    }
    return response;
  }
}
