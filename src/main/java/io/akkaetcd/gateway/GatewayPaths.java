package io.akkaetcd.gateway;

import java.util.Map;

/**
 * etcd's gateway paths (the {@code google.api.http} options of rpc.proto, v3lock.proto and
 * v3election.proto in etcd 3.4, plus 3.5's {@code hashkv} and {@code auth/status}), each to the
 * full gRPC method it calls. Only POST; {@code /v3beta/} is rewritten to {@code /v3/} before
 * lookup. A path here whose method no service registers answers UNIMPLEMENTED; any other path
 * answers grpc-gateway's 404.
 */
final class GatewayPaths {
  private GatewayPaths() {}

  private static final String KV = "/etcdserverpb.KV/";
  private static final String LEASE = "/etcdserverpb.Lease/";
  private static final String CLUSTER = "/etcdserverpb.Cluster/";
  private static final String MAINTENANCE = "/etcdserverpb.Maintenance/";
  private static final String AUTH = "/etcdserverpb.Auth/";
  private static final String LOCK = "/v3lockpb.Lock/";
  private static final String ELECTION = "/v3electionpb.Election/";

  /** Path to full method name. */
  static final Map<String, String> METHODS = Map.ofEntries(
      Map.entry("/v3/kv/range", KV + "Range"),
      Map.entry("/v3/kv/put", KV + "Put"),
      Map.entry("/v3/kv/deleterange", KV + "DeleteRange"),
      Map.entry("/v3/kv/txn", KV + "Txn"),
      Map.entry("/v3/kv/compaction", KV + "Compact"),
      Map.entry("/v3/watch", "/etcdserverpb.Watch/Watch"),
      Map.entry("/v3/lease/grant", LEASE + "LeaseGrant"),
      Map.entry("/v3/lease/revoke", LEASE + "LeaseRevoke"),
      Map.entry("/v3/kv/lease/revoke", LEASE + "LeaseRevoke"),
      Map.entry("/v3/lease/keepalive", LEASE + "LeaseKeepAlive"),
      Map.entry("/v3/lease/timetolive", LEASE + "LeaseTimeToLive"),
      Map.entry("/v3/kv/lease/timetolive", LEASE + "LeaseTimeToLive"),
      Map.entry("/v3/lease/leases", LEASE + "LeaseLeases"),
      Map.entry("/v3/kv/lease/leases", LEASE + "LeaseLeases"),
      Map.entry("/v3/cluster/member/add", CLUSTER + "MemberAdd"),
      Map.entry("/v3/cluster/member/remove", CLUSTER + "MemberRemove"),
      Map.entry("/v3/cluster/member/update", CLUSTER + "MemberUpdate"),
      Map.entry("/v3/cluster/member/list", CLUSTER + "MemberList"),
      Map.entry("/v3/cluster/member/promote", CLUSTER + "MemberPromote"),
      Map.entry("/v3/maintenance/alarm", MAINTENANCE + "Alarm"),
      Map.entry("/v3/maintenance/status", MAINTENANCE + "Status"),
      Map.entry("/v3/maintenance/defragment", MAINTENANCE + "Defragment"),
      Map.entry("/v3/maintenance/hash", MAINTENANCE + "Hash"),
      Map.entry("/v3/maintenance/hashkv", MAINTENANCE + "HashKV"),
      Map.entry("/v3/maintenance/snapshot", MAINTENANCE + "Snapshot"),
      Map.entry("/v3/maintenance/transfer-leadership", MAINTENANCE + "MoveLeader"),
      Map.entry("/v3/auth/enable", AUTH + "AuthEnable"),
      Map.entry("/v3/auth/disable", AUTH + "AuthDisable"),
      Map.entry("/v3/auth/status", AUTH + "AuthStatus"),
      Map.entry("/v3/auth/authenticate", AUTH + "Authenticate"),
      Map.entry("/v3/auth/user/add", AUTH + "UserAdd"),
      Map.entry("/v3/auth/user/get", AUTH + "UserGet"),
      Map.entry("/v3/auth/user/list", AUTH + "UserList"),
      Map.entry("/v3/auth/user/delete", AUTH + "UserDelete"),
      Map.entry("/v3/auth/user/changepw", AUTH + "UserChangePassword"),
      Map.entry("/v3/auth/user/grant", AUTH + "UserGrantRole"),
      Map.entry("/v3/auth/user/revoke", AUTH + "UserRevokeRole"),
      Map.entry("/v3/auth/role/add", AUTH + "RoleAdd"),
      Map.entry("/v3/auth/role/get", AUTH + "RoleGet"),
      Map.entry("/v3/auth/role/list", AUTH + "RoleList"),
      Map.entry("/v3/auth/role/delete", AUTH + "RoleDelete"),
      Map.entry("/v3/auth/role/grant", AUTH + "RoleGrantPermission"),
      Map.entry("/v3/auth/role/revoke", AUTH + "RoleRevokePermission"),
      Map.entry("/v3/lock/lock", LOCK + "Lock"),
      Map.entry("/v3/lock/unlock", LOCK + "Unlock"),
      Map.entry("/v3/election/campaign", ELECTION + "Campaign"),
      Map.entry("/v3/election/proclaim", ELECTION + "Proclaim"),
      Map.entry("/v3/election/leader", ELECTION + "Leader"),
      Map.entry("/v3/election/observe", ELECTION + "Observe"),
      Map.entry("/v3/election/resign", ELECTION + "Resign"));

  /** The path as etcd serves it: {@code /v3beta/...} is {@code /v3/...} (embed/serve.go). */
  static String canonical(String path) {
    return path.startsWith("/v3beta/") ? "/v3/" + path.substring("/v3beta/".length()) : path;
  }

  /** Whether the gateway's mux (mounted at /v3/, with the /v3beta/ rewrite) answers the path. */
  static boolean mounted(String path) {
    return path.startsWith("/v3/") || path.startsWith("/v3beta/");
  }
}
