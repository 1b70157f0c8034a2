package io.akkaetcd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.akkaetcd.proto.authpb.AuthProto;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.DeleteRangeRequest;
import io.akkaetcd.proto.etcdserverpb.InternalRaftRequest;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RaftInternalProto;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.RpcProto;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;
import io.akkaetcd.proto.mvccpb.KvProto;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Our etcdserverpb / mvccpb / authpb descriptors against the ones jetcd 0.7.7 generated from
 * etcd's own protos. Every element jetcd knows must be identical in ours (names, numbers, types,
 * labels, referenced types, oneofs, enum values, RPC paths and streaming). What jetcd's copy lacks
 * or has extra is listed explicitly below, each entry checked by hand against etcd v3.5's
 * api/etcdserverpb/rpc.proto and api/authpb/auth.proto.
 */
class WireCompatibilityTest {

  private static final List<FileDescriptor> JETCD = List.of(
      io.etcd.jetcd.api.JetcdProto.getDescriptor(),
      io.etcd.jetcd.api.Kv.getDescriptor(),
      io.etcd.jetcd.api.Auth.getDescriptor(),
      io.etcd.jetcd.api.lock.JetcdProto.getDescriptor(),
      io.etcd.jetcd.api.ElectionOuterClass.getDescriptor());

  private static final List<FileDescriptor> OURS = List.of(
      RpcProto.getDescriptor(), KvProto.getDescriptor(), AuthProto.getDescriptor(),
      io.akkaetcd.proto.v3lockpb.V3LockProto.getDescriptor(),
      io.akkaetcd.proto.v3electionpb.V3ElectionProto.getDescriptor());

  /** In etcd v3.5 but not in jetcd 0.7.7's copy; described in the format of {@link #describe}. */
  private static final Set<String> ETCD_ONLY = Set.of(
      // fields
      "etcdserverpb.AuthUserAddRequest.options=3 optional MESSAGE authpb.UserAddOptions",
      "etcdserverpb.AuthUserAddRequest.hashedPassword=4 optional STRING",
      "etcdserverpb.AuthUserChangePasswordRequest.hashedPassword=3 optional STRING",
      "etcdserverpb.MemberListRequest.linearizable=1 optional BOOL",
      "etcdserverpb.StatusResponse.raftAppliedIndex=7 optional UINT64",
      "etcdserverpb.StatusResponse.errors=8 repeated STRING",
      "etcdserverpb.StatusResponse.dbSizeInUse=9 optional INT64",
      "etcdserverpb.StatusResponse.isLearner=10 optional BOOL",
      "etcdserverpb.AuthStatusResponse.header=1 optional MESSAGE etcdserverpb.ResponseHeader",
      "etcdserverpb.AuthStatusResponse.enabled=2 optional BOOL",
      "etcdserverpb.AuthStatusResponse.authRevision=3 optional UINT64",
      "etcdserverpb.LeaseLeasesResponse.header=1 optional MESSAGE etcdserverpb.ResponseHeader",
      "etcdserverpb.LeaseLeasesResponse.leases=2 repeated MESSAGE etcdserverpb.LeaseStatus",
      "etcdserverpb.LeaseStatus.ID=1 optional INT64",
      "etcdserverpb.LeaseCheckpoint.ID=1 optional INT64",
      "etcdserverpb.LeaseCheckpoint.remaining_TTL=2 optional INT64",
      "etcdserverpb.LeaseCheckpointRequest.checkpoints=1 repeated MESSAGE etcdserverpb.LeaseCheckpoint",
      "etcdserverpb.LeaseCheckpointResponse.header=1 optional MESSAGE etcdserverpb.ResponseHeader",
      "etcdserverpb.MemberPromoteRequest.ID=1 optional UINT64",
      "etcdserverpb.MemberPromoteResponse.header=1 optional MESSAGE etcdserverpb.ResponseHeader",
      "etcdserverpb.MemberPromoteResponse.members=2 repeated MESSAGE etcdserverpb.Member",
      "etcdserverpb.DowngradeRequest.action=1 optional ENUM etcdserverpb.DowngradeRequest.DowngradeAction",
      "etcdserverpb.DowngradeRequest.version=2 optional STRING",
      "etcdserverpb.DowngradeResponse.header=1 optional MESSAGE etcdserverpb.ResponseHeader",
      "etcdserverpb.DowngradeResponse.version=2 optional STRING",
      "etcdserverpb.WatchCreateRequest.watch_id=7 optional INT64",
      "etcdserverpb.WatchCreateRequest.fragment=8 optional BOOL",
      "etcdserverpb.WatchResponse.fragment=7 optional BOOL",
      "authpb.User.options=4 optional MESSAGE authpb.UserAddOptions",
      "authpb.UserAddOptions.no_password=1 optional BOOL",
      "etcdserverpb.Compare.lease=8 optional INT64 in oneof target_union",
      // messages and enums
      "message authpb.UserAddOptions",
      "message etcdserverpb.AuthStatusRequest",
      "message etcdserverpb.AuthStatusResponse",
      "message etcdserverpb.DowngradeRequest",
      "message etcdserverpb.DowngradeResponse",
      "enum etcdserverpb.DowngradeRequest.DowngradeAction",
      "message etcdserverpb.LeaseCheckpoint",
      "message etcdserverpb.LeaseCheckpointRequest",
      "message etcdserverpb.LeaseCheckpointResponse",
      "message etcdserverpb.LeaseLeasesRequest",
      "message etcdserverpb.LeaseLeasesResponse",
      "message etcdserverpb.LeaseStatus",
      "message etcdserverpb.MemberPromoteRequest",
      "message etcdserverpb.MemberPromoteResponse",
      // enum values
      "etcdserverpb.AlarmType.CORRUPT=2",
      "etcdserverpb.Compare.CompareTarget.LEASE=4",
      "etcdserverpb.DowngradeRequest.DowngradeAction.VALIDATE=0",
      "etcdserverpb.DowngradeRequest.DowngradeAction.ENABLE=1",
      "etcdserverpb.DowngradeRequest.DowngradeAction.CANCEL=2",
      // methods
      "/etcdserverpb.Lease/LeaseLeases(etcdserverpb.LeaseLeasesRequest)->etcdserverpb.LeaseLeasesResponse",
      "/etcdserverpb.Cluster/MemberPromote(etcdserverpb.MemberPromoteRequest)->etcdserverpb.MemberPromoteResponse",
      "/etcdserverpb.Maintenance/Downgrade(etcdserverpb.DowngradeRequest)->etcdserverpb.DowngradeResponse",
      "/etcdserverpb.Auth/AuthStatus(etcdserverpb.AuthStatusRequest)->etcdserverpb.AuthStatusResponse");

  /** In jetcd's copy but not in etcd v3.5. */
  private static final Set<String> JETCD_ONLY = Set.of(
      // jetcd declares a unary Watch/Progress method; etcd asks for progress inside the Watch stream
      "/etcdserverpb.Watch/Progress(etcdserverpb.WatchProgressRequest)->etcdserverpb.WatchResponse");

  @Test
  void descriptorsMatchJetcd() {
    Map<String, String> theirs = describeAll(JETCD);
    Map<String, String> ours = describeAll(OURS);

    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : theirs.entrySet()) {
      String mine = ours.get(e.getKey());
      if (mine == null) {
        if (!JETCD_ONLY.contains(e.getValue())) {
          problems.add("missing in ours: " + e.getValue());
        }
      } else if (!mine.equals(e.getValue())) {
        problems.add("differs: jetcd " + e.getValue() + " / ours " + mine);
      }
    }
    Set<String> extras = new TreeSet<>();
    for (Map.Entry<String, String> e : ours.entrySet()) {
      if (!theirs.containsKey(e.getKey())) {
        extras.add(e.getValue());
      }
    }
    for (String extra : extras) {
      if (!ETCD_ONLY.contains(extra)) {
        problems.add("not in jetcd and not checked against etcd: " + extra);
      }
    }
    for (String expected : ETCD_ONLY) {
      if (!extras.contains(expected)) {
        problems.add("expected from etcd v3.5 but absent or different: " + expected);
      }
    }
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void everyMessageAndServiceOfEtcdIsDeclared() {
    // Names from etcd v3.5's rpc.proto that jetcd does not declare at all, so the walk above
    // could not have caught their absence.
    for (String name : List.of("LeaseLeasesRequest", "LeaseLeasesResponse", "LeaseStatus",
        "LeaseCheckpoint", "LeaseCheckpointRequest", "LeaseCheckpointResponse",
        "MemberPromoteRequest", "MemberPromoteResponse", "DowngradeRequest", "DowngradeResponse",
        "AuthStatusRequest", "AuthStatusResponse")) {
      assertTrue(RpcProto.getDescriptor().findMessageTypeByName(name) != null, name);
    }
    assertEquals(List.of("KV", "Watch", "Lease", "Cluster", "Maintenance", "Auth"),
        RpcProto.getDescriptor().getServices().stream().map(ServiceDescriptor::getName).toList());
    assertEquals(List.of("UserAddOptions", "User", "Permission", "Role"),
        AuthProto.getDescriptor().getMessageTypes().stream().map(Descriptor::getName).toList());
  }

  @Test
  void raftRequestKeepsEtcdFieldNumbers() {
    Descriptor d = RaftInternalProto.getDescriptor().findMessageTypeByName("InternalRaftRequest");
    Map<String, Integer> expected = new TreeMap<>();
    expected.put("id", 1);
    expected.put("header", 100);
    expected.put("range", 3);
    expected.put("put", 4);
    expected.put("delete_range", 5);
    expected.put("txn", 6);
    expected.put("compaction", 7);
    expected.put("lease_grant", 8);
    expected.put("lease_revoke", 9);
    expected.put("alarm", 10);
    expected.put("lease_checkpoint", 11);
    expected.put("auth_enable", 1000);
    expected.put("auth_disable", 1011);
    expected.put("authenticate", 1012);
    expected.put("auth_status", 1013);
    expected.put("auth_user_add", 1100);
    expected.put("auth_user_delete", 1101);
    expected.put("auth_user_get", 1102);
    expected.put("auth_user_change_password", 1103);
    expected.put("auth_user_grant_role", 1104);
    expected.put("auth_user_revoke_role", 1105);
    expected.put("auth_user_list", 1106);
    expected.put("auth_role_list", 1107);
    expected.put("auth_role_add", 1200);
    expected.put("auth_role_delete", 1201);
    expected.put("auth_role_get", 1202);
    expected.put("auth_role_grant_permission", 1203);
    expected.put("auth_role_revoke_permission", 1204);
    // etcd's cluster_member_attr_set: the same number for the same job (a member publishing its client URLs)
    expected.put("member_attr_set", 1301);
    Map<String, Integer> actual = new TreeMap<>();
    d.getFields().forEach(f -> actual.put(f.getName(), f.getNumber()));
    assertEquals(expected, actual);

    InternalRaftRequest r = InternalRaftRequest.newBuilder().setId(7)
        .setPut(PutRequest.newBuilder().setKey(ByteString.copyFromUtf8("k"))).build();
    assertEquals(InternalRaftRequest.RequestCase.PUT, r.getRequestCase());
  }

  @Test
  void filledTxnRequestRoundTripsThroughJetcd() throws Exception {
    TxnRequest ours = filledTxn();
    byte[] bytes = ours.toByteArray();
    io.etcd.jetcd.api.TxnRequest theirs = io.etcd.jetcd.api.TxnRequest.parseFrom(bytes);
    assertTrue(theirs.getUnknownFields().asMap().isEmpty(), "jetcd saw unknown fields");
    assertArrayEquals(bytes, theirs.toByteArray());
    assertEquals(ours, TxnRequest.parseFrom(theirs.toByteArray()));
    assertEquals(3, theirs.getCompareCount());
    assertEquals("b", theirs.getSuccess(2).getRequestTxn().getSuccess(0).getRequestPut()
        .getKey().toStringUtf8());
  }

  private static TxnRequest filledTxn() {
    ByteString a = ByteString.copyFromUtf8("a");
    ByteString b = ByteString.copyFromUtf8("b");
    return TxnRequest.newBuilder()
        .addCompare(Compare.newBuilder().setKey(a).setTarget(Compare.CompareTarget.MOD)
            .setResult(Compare.CompareResult.GREATER).setModRevision(5)
            .setRangeEnd(ByteString.copyFromUtf8("z")))
        .addCompare(Compare.newBuilder().setKey(b).setTarget(Compare.CompareTarget.VALUE)
            .setResult(Compare.CompareResult.NOT_EQUAL).setValue(ByteString.copyFromUtf8("v")))
        .addCompare(Compare.newBuilder().setKey(b).setTarget(Compare.CompareTarget.LEASE)
            .setResult(Compare.CompareResult.LESS).setLease(-3))
        .addSuccess(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(a)
            .setRangeEnd(b).setLimit(10).setRevision(4).setSortOrder(RangeRequest.SortOrder.DESCEND)
            .setSortTarget(RangeRequest.SortTarget.VALUE).setSerializable(true).setKeysOnly(true)
            .setCountOnly(true).setMinModRevision(1).setMaxModRevision(2)
            .setMinCreateRevision(3).setMaxCreateRevision(4)))
        .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(a)
            .setValue(ByteString.copyFromUtf8("x")).setLease(0x1234567890L).setPrevKv(true)
            .setIgnoreValue(true).setIgnoreLease(true)))
        .addSuccess(RequestOp.newBuilder().setRequestTxn(TxnRequest.newBuilder()
            .addSuccess(RequestOp.newBuilder().setRequestPut(PutRequest.newBuilder().setKey(b)))
            .addFailure(RequestOp.newBuilder().setRequestDeleteRange(
                DeleteRangeRequest.newBuilder().setKey(b).setPrevKv(true)))))
        .addFailure(RequestOp.newBuilder().setRequestDeleteRange(DeleteRangeRequest.newBuilder()
            .setKey(a).setRangeEnd(ByteString.copyFrom(new byte[] {0})).setPrevKv(true)))
        .build();
  }

  // ---- descriptor walk: key = the element's identity, value = everything that must match ----

  private static Map<String, String> describeAll(List<FileDescriptor> files) {
    Map<String, String> out = new TreeMap<>();
    for (FileDescriptor f : files) {
      f.getMessageTypes().forEach(m -> describeMessage(m, out));
      f.getEnumTypes().forEach(e -> describeEnum(e, out));
      for (ServiceDescriptor s : f.getServices()) {
        for (MethodDescriptor m : s.getMethods()) {
          String path = "/" + s.getFullName() + "/" + m.getName();
          out.put(path, path + "(" + (m.isClientStreaming() ? "stream " : "")
              + m.getInputType().getFullName() + ")->" + (m.isServerStreaming() ? "stream " : "")
              + m.getOutputType().getFullName());
        }
      }
    }
    return out;
  }

  private static void describeMessage(Descriptor m, Map<String, String> out) {
    out.put(m.getFullName(), "message " + m.getFullName());
    for (FieldDescriptor f : m.getFields()) {
      out.put(m.getFullName() + "#" + f.getNumber(), describe(m, f));
    }
    m.getNestedTypes().forEach(n -> describeMessage(n, out));
    m.getEnumTypes().forEach(e -> describeEnum(e, out));
  }

  private static String describe(Descriptor m, FieldDescriptor f) {
    StringBuilder s = new StringBuilder(m.getFullName()).append('.').append(f.getName())
        .append('=').append(f.getNumber())
        .append(f.isRepeated() ? " repeated " : " optional ").append(f.getType());
    if (f.getType() == FieldDescriptor.Type.MESSAGE || f.getType() == FieldDescriptor.Type.GROUP) {
      s.append(' ').append(f.getMessageType().getFullName());
    } else if (f.getType() == FieldDescriptor.Type.ENUM) {
      s.append(' ').append(f.getEnumType().getFullName());
    }
    if (f.getRealContainingOneof() != null) {
      s.append(" in oneof ").append(f.getRealContainingOneof().getName());
    }
    if (f.isPacked()) {
      s.append(" packed");
    }
    return s.toString();
  }

  private static void describeEnum(EnumDescriptor e, Map<String, String> out) {
    out.put(e.getFullName(), "enum " + e.getFullName());
    for (EnumValueDescriptor v : e.getValues()) {
      out.put(e.getFullName() + "#" + v.getName(), e.getFullName() + "." + v.getName() + "=" + v.getNumber());
    }
  }
}
