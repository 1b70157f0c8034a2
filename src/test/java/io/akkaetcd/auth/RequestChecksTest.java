package io.akkaetcd.auth;

import static io.akkaetcd.auth.AuthStateTest.HASH;
import static io.akkaetcd.auth.AuthStateTest.assertEtcdError;
import static io.akkaetcd.auth.AuthStateTest.b;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** etcd 3.4's matrix: which permission each request kind needs, and in what order. */
class RequestChecksTest {
  private static final String DENIED = "etcdserver: permission denied";

  /** alice: READWRITE on [rw, rx), READ on [r, s) and WRITE on [w, x); role "ro" as well. */
  private final AuthState state = AuthState.EMPTY.userAdd("root", HASH, false).userGrantRole("root", "root")
      .userAdd("alice", HASH, false).roleAdd("ro").roleAdd("rw")
      .roleGrantPermission("ro", new Permission(PermType.READ, b("r"), b("s")))
      .roleGrantPermission("rw", new Permission(PermType.WRITE, b("w"), b("x")))
      .roleGrantPermission("rw", new Permission(PermType.READWRITE, b("b"), b("c")))
      .userGrantRole("alice", "ro").userGrantRole("alice", "rw").authEnable();
  private final AuthInfo alice = new AuthInfo("alice", state.revision());

  private static PutRequest put(String key, boolean prevKv) {
    return PutRequest.newBuilder().setKey(b(key)).setPrevKv(prevKv).build();
  }

  private static DeleteRangeRequest delete(String key, String end, boolean prevKv) {
    return DeleteRangeRequest.newBuilder().setKey(b(key)).setRangeEnd(b(end)).setPrevKv(prevKv).build();
  }

  @Test
  void rangePutAndDelete() {
    RequestChecks.range(state, alice, RangeRequest.newBuilder().setKey(b("r")).setRangeEnd(b("s")).build());
    assertEtcdError(7, DENIED,
        () -> RequestChecks.range(state, alice, RangeRequest.newBuilder().setKey(b("w")).build()));
    RequestChecks.put(state, alice, put("w1", false), List.of());
    assertEtcdError(7, DENIED, () -> RequestChecks.put(state, alice, put("w1", true), List.of())); // prev_kv reads
    RequestChecks.put(state, alice, put("b1", true), List.of());
    // keys already on the put's lease must be writable too
    assertEtcdError(7, DENIED, () -> RequestChecks.put(state, alice, put("w1", false), List.of(b("r1"))));
    RequestChecks.deleteRange(state, alice, delete("w", "x", false));
    assertEtcdError(7, DENIED, () -> RequestChecks.deleteRange(state, alice, delete("w", "x", true)));
    RequestChecks.leaseRevoke(state, alice, List.of(b("w1"), b("b9")));
    assertEtcdError(7, DENIED, () -> RequestChecks.leaseRevoke(state, alice, List.of(b("w1"), b("r1"))));
  }

  @Test
  void txnChecksComparesAndBothBranches() {
    RequestOp readR = RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(b("r1"))).build();
    RequestOp putW = RequestOp.newBuilder().setRequestPut(put("w1", true)).build(); // prev_kv not checked in a txn
    RequestOp putR = RequestOp.newBuilder().setRequestPut(put("r1", false)).build();
    Compare onR = Compare.newBuilder().setKey(b("r1")).build();
    Compare onW = Compare.newBuilder().setKey(b("w1")).build();
    RequestChecks.txn(state, alice, TxnRequest.newBuilder().addCompare(onR).addSuccess(putW).addFailure(readR).build());
    assertEtcdError(7, DENIED, () -> RequestChecks.txn(state, alice, TxnRequest.newBuilder().addCompare(onW).build()));
    assertEtcdError(7, DENIED,
        () -> RequestChecks.txn(state, alice, TxnRequest.newBuilder().addSuccess(readR).addFailure(putR).build()));
    RequestOp deleteWithPrev = RequestOp.newBuilder().setRequestDeleteRange(delete("w1", "", true)).build();
    assertEtcdError(7, DENIED,
        () -> RequestChecks.txn(state, alice, TxnRequest.newBuilder().addSuccess(deleteWithPrev).build()));
    // the revision is checked first, whatever the op
    AuthInfo stale = new AuthInfo("alice", state.revision() - 1);
    assertEtcdError(3, "etcdserver: revision of auth store is old",
        () -> RequestChecks.txn(state, stale, TxnRequest.newBuilder().addCompare(onR).build()));
  }

  @Test
  void adminEntriesAndSelfService() {
    assertTrue(RequestChecks.needsAdmin(InternalRaftRequest.RequestCase.AUTH_ENABLE));
    assertTrue(RequestChecks.needsAdmin(InternalRaftRequest.RequestCase.AUTH_USER_LIST));
    assertFalse(RequestChecks.needsAdmin(InternalRaftRequest.RequestCase.AUTH_USER_GET));
    assertFalse(RequestChecks.needsAdmin(InternalRaftRequest.RequestCase.AUTHENTICATE));
    assertFalse(RequestChecks.needsAdmin(InternalRaftRequest.RequestCase.PUT));
    RequestChecks.userGet(state, alice, "alice");
    assertEtcdError(7, DENIED, () -> RequestChecks.userGet(state, alice, "root"));
    RequestChecks.userGet(state, new AuthInfo("root", state.revision()), "alice");
    RequestChecks.roleGet(state, alice, "ro");
    assertEtcdError(7, DENIED, () -> RequestChecks.roleGet(state, alice, "root"));
    assertEtcdError(3, "etcdserver: user name is empty", () -> RequestChecks.roleGet(state, null, "ro"));
  }
}
