package io.akkaetcd.metrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gRPC methods etcd 3.4 registers on its client server, with go-grpc-prometheus's
 * {@code grpc_type}: the series etcd pre-creates at zero (every method × every code). v3lock and
 * v3election are served by etcd's gateway server only and are not pre-created.
 */
public final class GrpcMethods {
  private GrpcMethods() {}

  public static final String UNARY = "unary";
  public static final String SERVER_STREAM = "server_stream";
  public static final String BIDI_STREAM = "bidi_stream";

  /** grpc_type by full method name ({@code /etcdserverpb.KV/Put}), in etcd's order. */
  public static final Map<String, String> TYPES = types();

  private static Map<String, String> types() {
    Map<String, String> m = new LinkedHashMap<>();
    unary(m, "etcdserverpb.KV", "Range", "Put", "DeleteRange", "Txn", "Compact");
    m.put("/etcdserverpb.Watch/Watch", BIDI_STREAM);
    unary(m, "etcdserverpb.Lease", "LeaseGrant", "LeaseRevoke", "LeaseTimeToLive", "LeaseLeases");
    m.put("/etcdserverpb.Lease/LeaseKeepAlive", BIDI_STREAM);
    unary(m, "etcdserverpb.Cluster", "MemberAdd", "MemberRemove", "MemberUpdate", "MemberList", "MemberPromote");
    unary(m, "etcdserverpb.Maintenance", "Alarm", "Status", "Defragment", "Hash", "HashKV", "MoveLeader");
    m.put("/etcdserverpb.Maintenance/Snapshot", SERVER_STREAM);
    unary(m, "etcdserverpb.Auth", "AuthEnable", "AuthDisable", "Authenticate", "UserAdd", "UserGet",
        "UserList", "UserDelete", "UserChangePassword", "UserGrantRole", "UserRevokeRole", "RoleAdd",
        "RoleGet", "RoleList", "RoleDelete", "RoleGrantPermission", "RoleRevokePermission");
    m.put("/grpc.health.v1.Health/Check", UNARY);
    m.put("/grpc.health.v1.Health/Watch", SERVER_STREAM);
    return java.util.Collections.unmodifiableMap(m);
  }

  private static void unary(Map<String, String> m, String service, String... methods) {
    for (String method : List.of(methods)) {
      m.put("/" + service + "/" + method, UNARY);
    }
  }

  /** The grpc_type of a full method name; unary for one etcd does not register. */
  public static String type(String fullMethod) {
    return TYPES.getOrDefault(fullMethod, UNARY);
  }
}
