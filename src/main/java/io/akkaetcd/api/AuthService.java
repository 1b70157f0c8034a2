package io.akkaetcd.api;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.akkaetcd.apply.AuthApplier;
import io.akkaetcd.auth.AuthInfo;
import io.akkaetcd.auth.AuthState;
import io.akkaetcd.auth.Passwords;
import io.akkaetcd.api.pipeline.CurrentCall;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdFailures;
import io.akkaetcd.proto.etcdserverpb.*;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * etcd's Auth service. Every RPC but AuthStatus is a Raft entry applied on every member by the
 * {@link AuthApplier}, which checks root for the admin ones with the caller the entry carries
 * (etcd 3.4's authApplierV3). Passwords are hashed here, before the proposal (etcd 3.5's order),
 * and Authenticate checks the password here after a read-index barrier (etcd's CheckPassword),
 * both on the {@link Passwords} executor: the applier stays deterministic and never runs bcrypt.
 */
public final class AuthService implements Auth {
  private final EtcdMember member;
  private final AuthApplier auth;
  private final Passwords passwords;

  public AuthService(EtcdMember member, AuthApplier auth, Passwords passwords) {
    this.member = member;
    this.auth = auth;
    this.passwords = passwords;
  }

  @Override
  public CompletionStage<AuthEnableResponse> authEnable(AuthEnableRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthEnable(in));
  }

  @Override
  public CompletionStage<AuthDisableResponse> authDisable(AuthDisableRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthDisable(in));
  }

  /** Whether auth is on at this member. */
  public boolean enabled() {
    return auth.state().enabled();
  }

  /** etcd 3.5's AuthStatus (3.4 has none): this member's view, no permission needed. */
  @Override
  public CompletionStage<AuthStatusResponse> authStatus(AuthStatusRequest in) {
    AuthState s = auth.state();
    return CompletableFuture.completedFuture(AuthStatusResponse.newBuilder()
        .setHeader(member.header(member.store().currentRevision()))
        .setEnabled(s.enabled()).setAuthRevision(s.revision()).build());
  }

  /**
   * etcd's Authenticate: a read-index barrier, the password checked against the hash this member
   * holds, then an entry that assigns the token on every member (the simple token's random part
   * drawn here, so all assign the same one). Run again through elections (etcd fails it with
   * "leader changed" or a timeout): clients do not retry a failed Authenticate, and a second
   * token entry only assigns a token nobody uses.
   */
  @Override
  public CompletionStage<AuthenticateResponse> authenticate(AuthenticateRequest in) {
    return ThroughElections.run(() -> member.linearizableBarrier()
        .thenCompose(v -> passwords.check(auth.state().passwordHash(in.getName()), in.getPassword()))
        .thenCompose(ok -> {
          if (!ok) {
            throw EtcdError.AUTH_FAILED.exception();
          }
          return propose(null, InternalRaftRequest.newBuilder().setAuthenticate(InternalAuthenticateRequest.newBuilder()
              .setName(in.getName()).setSimpleToken(auth.tokens().tokenPrefix())));
        }), () -> member.raftStatus().leader(), member.requestTimeout());
  }

  @Override
  public CompletionStage<AuthUserAddResponse> userAdd(AuthUserAddRequest in) {
    AuthInfo who = CurrentCall.authInfo();
    if (in.hasOptions() && in.getOptions().getNoPassword()) {
      return propose(who, InternalRaftRequest.newBuilder().setAuthUserAdd(in.toBuilder().clearPassword()));
    }
    return hashedThenProposed(who, in.getPassword(), hash -> InternalRaftRequest.newBuilder()
        .setAuthUserAdd(in.toBuilder().clearPassword().setHashedPassword(hash)));
  }

  @Override
  public CompletionStage<AuthUserGetResponse> userGet(AuthUserGetRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthUserGet(in));
  }

  @Override
  public CompletionStage<AuthUserListResponse> userList(AuthUserListRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthUserList(in));
  }

  @Override
  public CompletionStage<AuthUserDeleteResponse> userDelete(AuthUserDeleteRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthUserDelete(in));
  }

  @Override
  public CompletionStage<AuthUserChangePasswordResponse> userChangePassword(AuthUserChangePasswordRequest in) {
    AuthInfo who = CurrentCall.authInfo();
    return hashedThenProposed(who, in.getPassword(), hash -> InternalRaftRequest.newBuilder()
        .setAuthUserChangePassword(in.toBuilder().clearPassword().setHashedPassword(hash)));
  }

  @Override
  public CompletionStage<AuthUserGrantRoleResponse> userGrantRole(AuthUserGrantRoleRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthUserGrantRole(in));
  }

  @Override
  public CompletionStage<AuthUserRevokeRoleResponse> userRevokeRole(AuthUserRevokeRoleRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthUserRevokeRole(in));
  }

  @Override
  public CompletionStage<AuthRoleAddResponse> roleAdd(AuthRoleAddRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthRoleAdd(in));
  }

  @Override
  public CompletionStage<AuthRoleGetResponse> roleGet(AuthRoleGetRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthRoleGet(in));
  }

  @Override
  public CompletionStage<AuthRoleListResponse> roleList(AuthRoleListRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthRoleList(in));
  }

  @Override
  public CompletionStage<AuthRoleDeleteResponse> roleDelete(AuthRoleDeleteRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthRoleDelete(in));
  }

  @Override
  public CompletionStage<AuthRoleGrantPermissionResponse> roleGrantPermission(AuthRoleGrantPermissionRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthRoleGrantPermission(in));
  }

  @Override
  public CompletionStage<AuthRoleRevokePermissionResponse> roleRevokePermission(AuthRoleRevokePermissionRequest in) {
    return propose(InternalRaftRequest.newBuilder().setAuthRoleRevokePermission(in));
  }

  /** The password hashed off the request's thread, then the entry with the hash (never the password). */
  private <R extends Message> CompletionStage<R> hashedThenProposed(AuthInfo who, String password,
      java.util.function.Function<String, InternalRaftRequest.Builder> entry) {
    return EtcdFailures.guarded(() -> passwords.hash(password).thenCompose(hash -> propose(who,
        entry.apply(hash.toStringUtf8()))));
  }

  /** Proposes as the call being entered (read on the entering thread). */
  private <R extends Message> CompletionStage<R> propose(InternalRaftRequest.Builder request) {
    return propose(CurrentCall.authInfo(), request);
  }

  @SuppressWarnings("unchecked")
  private <R extends Message> CompletionStage<R> propose(AuthInfo who, InternalRaftRequest.Builder request) {
    return EtcdFailures.guarded(() -> member.propose(Callers.by(who, request)).thenApply(r -> (R) withHeader((Message) r)));
  }

  /** The response with this member's header at the current store revision, as etcd's newHeader. */
  private Message withHeader(Message response) {
    Descriptors.FieldDescriptor header = response.getDescriptorForType().findFieldByName("header");
    return response.toBuilder().setField(header, member.header(member.store().currentRevision())).build();
  }

}
