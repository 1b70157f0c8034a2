package io.akkaetcd.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.auth.SimpleTokens;
import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.errors.EtcdException;
import io.akkaetcd.lease.Lessor;
import io.akkaetcd.mvcc.MvccStore;
import io.akkaetcd.proto.authpb.Permission;
import io.akkaetcd.proto.etcdserverpb.*;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The auth store's applier side: Auth entries persist in the MVCC store's batch and come back at
 * the next open; writes are checked at apply with the caller and auth revision their entry
 * carries; admin entries need root; the member's own entries (no header) act as root.
 */
class AuthApplierTest {
  @TempDir
  Path dir;

  private long index;

  private static SimpleTokens tokens() {
    return new SimpleTokens(Duration.ofMinutes(5), System::nanoTime, new SecureRandom());
  }

  private Object apply(AuthApplier auth, MvccStore store, InternalRaftRequest.Builder r) {
    index++;
    Object response = auth.apply(store, index, r.build());
    store.setApplied(index, 1);
    store.commitBatch();
    return response;
  }

  private static InternalRaftRequest.Builder as(String user, long revision) {
    return InternalRaftRequest.newBuilder()
        .setHeader(RequestHeader.newBuilder().setUsername(user).setAuthRevision(revision));
  }

  /** root (role root) and alice (role r1: readwrite on a/ as a prefix), then auth enabled. */
  private void setUp(AuthApplier auth, MvccStore store) {
    apply(auth, store, as("", 0).setAuthUserAdd(AuthUserAddRequest.newBuilder().setName("root").setHashedPassword("h1")));
    apply(auth, store, as("", 0).setAuthUserGrantRole(AuthUserGrantRoleRequest.newBuilder().setUser("root").setRole("root")));
    apply(auth, store, as("", 0).setAuthUserAdd(AuthUserAddRequest.newBuilder().setName("alice").setHashedPassword("h2")));
    apply(auth, store, as("", 0).setAuthRoleAdd(AuthRoleAddRequest.newBuilder().setName("r1")));
    apply(auth, store, as("", 0).setAuthRoleGrantPermission(AuthRoleGrantPermissionRequest.newBuilder().setName("r1")
        .setPerm(Permission.newBuilder().setPermType(Permission.Type.READWRITE).setKey(ByteString.copyFromUtf8("a/"))
            .setRangeEnd(ByteString.copyFromUtf8("a0")))));
    apply(auth, store, as("", 0).setAuthUserGrantRole(AuthUserGrantRoleRequest.newBuilder().setUser("alice").setRole("r1")));
    apply(auth, store, as("", 0).setAuthEnable(AuthEnableRequest.getDefaultInstance()));
  }

  @Test
  void authStateIsWrittenWithTheBatchAndRecoveredAtOpen() {
    long revision;
    try (MvccStore store = MvccStore.open(dir)) {
      AuthApplier auth = AuthApplier.recover(store, tokens());
      assertFalse(auth.state().enabled());
      setUp(auth, store);
      revision = auth.state().revision();
      assertEquals(7, revision); // 1, then +1 for each of the six changes; enabling adds nothing
    }
    try (MvccStore store = MvccStore.open(dir)) {
      AuthApplier auth = AuthApplier.recover(store, tokens());
      assertTrue(auth.state().enabled());
      assertEquals(revision, auth.state().revision());
      assertEquals(List.of("alice", "root"), auth.state().userList());
      assertEquals(ByteString.copyFromUtf8("h2"), auth.state().user("alice").password());
      assertTrue(auth.state().isRangePermitted("alice", ByteString.copyFromUtf8("a/x"), ByteString.EMPTY,
          io.akkaetcd.auth.PermType.WRITE));
      // a deleted user's row goes too
      apply(auth, store, as("root", revision).setAuthUserDelete(AuthUserDeleteRequest.newBuilder().setName("alice")));
    }
    try (MvccStore store = MvccStore.open(dir)) {
      assertEquals(List.of("root"), AuthApplier.recover(store, tokens()).state().userList());
    }
  }

  @Test
  void writesAreCheckedAtApplyWithTheRevisionTheyCarry() {
    try (MvccStore store = MvccStore.open(dir)) {
      AuthApplier auth = AuthApplier.recover(store, tokens());
      setUp(auth, store);
      Lessor lessor = new Lessor(1);
      long rev = auth.state().revision();
      PutRequest put = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("a/x")).build();
      auth.checkWrite(as("alice", rev).setPut(put).build(), lessor);
      PutRequest outside = PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("b")).build();
      assertError(EtcdError.PERMISSION_DENIED, () -> auth.checkWrite(as("alice", rev).setPut(outside).build(), lessor));
      assertError(EtcdError.USER_EMPTY, () -> auth.checkWrite(as("", 0).setPut(put).build(), lessor));
      auth.checkWrite(InternalRaftRequest.newBuilder().setPut(outside).build(), lessor); // the member's own entry

      // A change to the auth store between proposal and apply: the write is refused.
      apply(auth, store, as("root", rev).setAuthRoleRevokePermission(AuthRoleRevokePermissionRequest.newBuilder()
          .setRole("r1").setKey(ByteString.copyFromUtf8("a/")).setRangeEnd(ByteString.copyFromUtf8("a0"))));
      assertError(EtcdError.AUTH_OLD_REVISION, () -> auth.checkWrite(as("alice", rev).setPut(put).build(), lessor));
      assertError(EtcdError.PERMISSION_DENIED,
          () -> auth.checkWrite(as("alice", rev + 1).setPut(put).build(), lessor));
    }
  }

  @Test
  void adminEntriesNeedRootAndLeaveTheStateAsItWasWhenRefused() {
    try (MvccStore store = MvccStore.open(dir)) {
      AuthApplier auth = AuthApplier.recover(store, tokens());
      setUp(auth, store);
      var before = auth.state();
      assertError(EtcdError.PERMISSION_DENIED, () -> apply(auth, store,
          as("alice", before.revision()).setAuthRoleAdd(AuthRoleAddRequest.newBuilder().setName("r2"))));
      assertError(EtcdError.USER_EMPTY, () -> apply(auth, store,
          as("", 0).setAuthUserList(AuthUserListRequest.getDefaultInstance())));
      assertError(EtcdError.INVALID_AUTH_MGMT, () -> apply(auth, store,
          as("root", before.revision()).setAuthUserDelete(AuthUserDeleteRequest.newBuilder().setName("root"))));
      assertEquals(before, auth.state());
      AuthUserGetResponse self = (AuthUserGetResponse) apply(auth, store,
          as("alice", before.revision()).setAuthUserGet(AuthUserGetRequest.newBuilder().setName("alice")));
      assertEquals(List.of("r1"), self.getRolesList());
    }
  }

  @Test
  void authenticateAssignsTheProposersTokenAndAPasswordChangeDropsIt() {
    try (MvccStore store = MvccStore.open(dir)) {
      SimpleTokens tokens = tokens();
      AuthApplier auth = AuthApplier.recover(store, tokens);
      setUp(auth, store);
      AuthenticateResponse r = (AuthenticateResponse) apply(auth, store, InternalRaftRequest.newBuilder()
          .setAuthenticate(InternalAuthenticateRequest.newBuilder().setName("alice").setSimpleToken("abcdefghijklmnop")));
      assertEquals("abcdefghijklmnop." + index, r.getToken());
      assertEquals("alice", tokens.info(r.getToken(), 1).orElseThrow().username());
      apply(auth, store, as("root", auth.state().revision()).setAuthUserChangePassword(
          AuthUserChangePasswordRequest.newBuilder().setName("alice").setHashedPassword("h3")));
      assertTrue(tokens.info(r.getToken(), 1).isEmpty());
    }
  }

  private static void assertError(EtcdError expected, Runnable call) {
    EtcdException e = assertThrows(EtcdException.class, call::run);
    assertEquals(expected, e.error());
  }
}
