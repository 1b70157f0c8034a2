package io.akkaetcd.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.ErrorCode;
import io.akkaetcd.errors.EtcdException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class AuthStateTest {
  static final ByteString HASH = ByteString.copyFromUtf8("$2a$10$hash");

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }

  /** Asserts etcd's exact text and gRPC code. */
  static void assertEtcdError(int code, String text, Executable call) {
    EtcdException e = assertThrows(EtcdException.class, call);
    assertEquals(text, e.getMessage());
    assertEquals(code, e.error().code().value());
  }

  static AuthState rootOnly() {
    return AuthState.EMPTY.userAdd("root", HASH, false).userGrantRole("root", "root");
  }

  @Test
  void newStoreIsDisabledAtRevisionOne() {
    assertFalse(AuthState.EMPTY.enabled());
    assertEquals(1, AuthState.EMPTY.revision());
    assertEquals(List.of(), AuthState.EMPTY.userList());
    assertEquals(List.of(), AuthState.EMPTY.roleList());
  }

  @Test
  void authEnableNeedsRootUserWithRootRoleAndDoesNotBump() {
    assertEtcdError(9, "etcdserver: root user does not exist", AuthState.EMPTY::authEnable);
    AuthState noRole = AuthState.EMPTY.userAdd("root", HASH, false);
    assertEtcdError(9, "etcdserver: root user does not have root role", noRole::authEnable);

    AuthState s = rootOnly();
    assertEquals(3, s.revision()); // add, grant: the role root need not exist
    AuthState on = s.authEnable();
    assertTrue(on.enabled());
    assertEquals(3, on.revision());
    assertSame(on, on.authEnable());
    AuthState off = on.authDisable();
    assertFalse(off.enabled());
    assertEquals(4, off.revision());
    assertSame(off, off.authDisable());
  }

  @Test
  void userErrorsInEtcdsOrder() {
    AuthState s = rootOnly();
    assertEtcdError(3, "etcdserver: user name is empty", () -> s.userAdd("", HASH, false));
    assertEtcdError(9, "etcdserver: user name already exists", () -> s.userAdd("root", HASH, false));
    assertEtcdError(9, "etcdserver: user name not found", () -> s.userDelete("nobody"));
    assertEtcdError(9, "etcdserver: user name not found", () -> s.userChangePassword("nobody", HASH));
    assertEtcdError(9, "etcdserver: user name not found", () -> s.userGrantRole("nobody", "r"));
    assertEtcdError(9, "etcdserver: role name not found", () -> s.userGrantRole("root", "r"));
    assertEtcdError(9, "etcdserver: user name not found", () -> s.userRevokeRole("nobody", "r"));
    assertEtcdError(9, "etcdserver: role is not granted to the user", () -> s.userRevokeRole("root", "r"));
    assertEtcdError(9, "etcdserver: user name not found", () -> s.userGet("nobody"));
  }

  @Test
  void rootIsProtectedOnlyWhileEnabled() {
    AuthState on = rootOnly().roleAdd("root").authEnable();
    assertEtcdError(3, "etcdserver: invalid auth management", () -> on.userDelete("root"));
    assertEtcdError(3, "etcdserver: invalid auth management", () -> on.userRevokeRole("root", "root"));
    assertEtcdError(3, "etcdserver: invalid auth management", () -> on.roleDelete("root"));
    AuthState off = on.authDisable();
    assertEquals(List.of(), off.userRevokeRole("root", "root").userGet("root"));
    assertEquals(List.of("root"), off.userDelete("root").roleList());
    assertEquals(List.of(), off.roleDelete("root").userGet("root"));
  }

  @Test
  void everyMutationBumpsTheRevisionByOne() {
    AuthState s = AuthState.EMPTY;
    long rev = s.revision();
    s = s.userAdd("alice", HASH, false);
    assertEquals(++rev, s.revision());
    s = s.roleAdd("r");
    assertEquals(++rev, s.revision());
    s = s.userGrantRole("alice", "r");
    assertEquals(++rev, s.revision());
    assertSame(s, s.userGrantRole("alice", "r")); // already held: no change, no bump
    s = s.roleGrantPermission("r", new Permission(PermType.READ, b("a"), b("")));
    assertEquals(++rev, s.revision());
    s = s.roleGrantPermission("r", new Permission(PermType.WRITE, b("a"), b(""))); // update of type
    assertEquals(++rev, s.revision());
    s = s.userChangePassword("alice", b("other"));
    assertEquals(++rev, s.revision());
    s = s.roleRevokePermission("r", b("a"), b(""));
    assertEquals(++rev, s.revision());
    s = s.userRevokeRole("alice", "r");
    assertEquals(++rev, s.revision());
    s = s.roleDelete("r");
    assertEquals(++rev, s.revision());
    s = s.userDelete("alice");
    assertEquals(++rev, s.revision());
  }

  @Test
  void rolesAreSortedAndRoleDeleteStripsThemFromUsers() {
    AuthState s = AuthState.EMPTY.userAdd("u", HASH, false).roleAdd("b").roleAdd("a").roleAdd("c")
        .userGrantRole("u", "c").userGrantRole("u", "a").userGrantRole("u", "b");
    assertEquals(List.of("a", "b", "c"), s.userGet("u"));
    assertEquals(List.of("a", "b", "c"), s.roleList());
    assertEquals(List.of("a", "c"), s.roleDelete("b").userGet("u"));
  }

  @Test
  void roleErrors() {
    AuthState s = AuthState.EMPTY.roleAdd("r");
    assertEtcdError(3, "etcdserver: role name is empty", () -> s.roleAdd(""));
    assertEtcdError(9, "etcdserver: role name already exists", () -> s.roleAdd("r"));
    assertEtcdError(9, "etcdserver: role name not found", () -> s.roleGet("x"));
    assertEtcdError(9, "etcdserver: role name not found", () -> s.roleDelete("x"));
    assertEtcdError(9, "etcdserver: role name not found",
        () -> s.roleGrantPermission("x", new Permission(PermType.READ, b("a"), b(""))));
    assertEtcdError(3, "etcdserver: permission not given", () -> s.roleGrantPermission("r", null));
    assertEtcdError(9, "etcdserver: role name not found", () -> s.roleRevokePermission("x", b("a"), b("")));
    assertEtcdError(9, "etcdserver: permission is not granted to the role",
        () -> s.roleRevokePermission("r", b("a"), b("")));
  }

  @Test
  void permissionsAreSortedByKeyAndUpdatedInPlace() {
    AuthState s = AuthState.EMPTY.roleAdd("r")
        .roleGrantPermission("r", new Permission(PermType.READ, b("m"), b("")))
        .roleGrantPermission("r", new Permission(PermType.READ, b("c"), b("d")))
        .roleGrantPermission("r", new Permission(PermType.WRITE, b("c"), b("")))
        .roleGrantPermission("r", new Permission(PermType.READWRITE, b("c"), b("d")));
    assertEquals(List.of(new Permission(PermType.READWRITE, b("c"), b("d")),
        new Permission(PermType.WRITE, b("c"), b("")),
        new Permission(PermType.READ, b("m"), b(""))), s.roleGet("r"));
    // etcd compares only the first permission with the key: [c, "") again is appended twice
    AuthState twice = s.roleGrantPermission("r", new Permission(PermType.READ, b("c"), b("")));
    assertEquals(4, twice.roleGet("r").size());
    assertEquals(2, twice.roleRevokePermission("r", b("c"), b("")).roleGet("r").size());
  }

  /** As etcdctl role get showed on etcd 3.4.23: the second grant on [a, c) is a third permission. */
  @Test
  void grantOnAKeyHeldWithAnotherRangeEndAppendsAsEtcd() {
    AuthState s = AuthState.EMPTY.roleAdd("r")
        .roleGrantPermission("r", new Permission(PermType.READ, b("a"), b("b")))
        .roleGrantPermission("r", new Permission(PermType.READ, b("a"), b("c")))
        .roleGrantPermission("r", new Permission(PermType.WRITE, b("a"), b("c")));
    assertEquals(List.of(new Permission(PermType.READ, b("a"), b("b")), new Permission(PermType.READ, b("a"), b("c")),
        new Permission(PermType.WRITE, b("a"), b("c"))), s.roleGet("r"));
  }

  @Test
  void checksInEtcdsOrder() {
    AuthState s = rootOnly().userAdd("alice", HASH, false).roleAdd("r")
        .roleGrantPermission("r", new Permission(PermType.READ, b("foo"), b("")))
        .userGrantRole("alice", "r");
    // auth off: everything allowed, even without a user
    s.checkPermitted(null, b("x"), b(""), PermType.WRITE);
    s.checkAdmin(null);

    AuthState on = s.authEnable();
    long rev = on.revision();
    assertEtcdError(3, "etcdserver: user name is empty",
        () -> on.checkPermitted(null, b("foo"), b(""), PermType.READ));
    assertEtcdError(3, "etcdserver: user name is empty",
        () -> on.checkPermitted(new AuthInfo("", 0), b("foo"), b(""), PermType.READ));
    assertEtcdError(3, "etcdserver: revision of auth store is old",
        () -> on.checkPermitted(new AuthInfo("alice", rev - 1), b("foo"), b(""), PermType.READ));
    assertEtcdError(7, "etcdserver: permission denied",
        () -> on.checkPermitted(new AuthInfo("bob", rev), b("foo"), b(""), PermType.READ));
    assertEtcdError(7, "etcdserver: permission denied",
        () -> on.checkPermitted(new AuthInfo("alice", rev), b("foo"), b(""), PermType.WRITE));
    on.checkPermitted(new AuthInfo("alice", rev), b("foo"), b(""), PermType.READ);
    on.checkPermitted(new AuthInfo("root", rev), b("anything"), b("\0"), PermType.WRITE);

    assertEtcdError(3, "etcdserver: user name is empty", () -> on.checkAdmin(null));
    assertEtcdError(3, "etcdserver: user name is empty", () -> on.checkAdmin(new AuthInfo("", rev)));
    assertEtcdError(9, "etcdserver: user name not found", () -> on.checkAdmin(new AuthInfo("bob", rev)));
    assertEtcdError(7, "etcdserver: permission denied", () -> on.checkAdmin(new AuthInfo("alice", rev)));
    on.checkAdmin(new AuthInfo("root", rev));
  }

  @Test
  void passwordChecksBeforeAuthenticate() {
    AuthState off = rootOnly().userAdd("cn", HASH, true);
    assertEtcdError(9, "etcdserver: authentication is not enabled", () -> off.passwordHash("root"));
    AuthState on = off.authEnable();
    assertEquals(HASH, on.passwordHash("root"));
    assertEtcdError(3, "etcdserver: authentication failed, invalid user ID or password",
        () -> on.passwordHash("nobody"));
    EtcdException e = assertThrows(EtcdException.class, () -> on.passwordHash("cn"));
    assertEquals("auth: authentication failed, password was given for no password user", e.getMessage());
    assertEquals(ErrorCode.UNKNOWN, e.error().code());
    assertEtcdError(3, "etcdserver: authentication failed, invalid user ID or password",
        () -> on.checkAuthenticate("cn"));
    on.checkAuthenticate("root");
    assertEquals(ByteString.EMPTY, on.user("cn").password());
  }

  @Test
  void credentialsChangedNamesDeletedUsersAndNewPasswords() {
    AuthState s = AuthState.EMPTY.userAdd("a", HASH, false).userAdd("b", HASH, false).userAdd("c", HASH, false);
    AuthState next = s.userDelete("a").userChangePassword("b", b("new")).roleAdd("r").userGrantRole("c", "r");
    assertEquals(List.of("a", "b"), next.credentialsChangedSince(s));
  }

  @Test
  void namesFollowGoByteOrder() {
    // UTF-16 puts U+1F600 (a surrogate pair, 0xD83D...) before U+FF5E; UTF-8 bytes, Go's order, after
    AuthState s = AuthState.EMPTY.roleAdd("\uFF5E").roleAdd("\uD83D\uDE00").roleAdd("a");
    assertEquals(List.of("a", "\uFF5E", "\uD83D\uDE00"), s.roleList());
  }
}
