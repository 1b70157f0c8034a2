package io.akkaetcd.api.pipeline;

/** etcd's full method names, as gRPC names them, for the calls that are made without a path. */
public final class Methods {
  private Methods() {}

  public static final String RANGE = "/etcdserverpb.KV/Range";
  public static final String PUT = "/etcdserverpb.KV/Put";
  public static final String DELETE_RANGE = "/etcdserverpb.KV/DeleteRange";
  public static final String TXN = "/etcdserverpb.KV/Txn";
  public static final String COMPACT = "/etcdserverpb.KV/Compact";
  public static final String WATCH = "/etcdserverpb.Watch/Watch";
  public static final String LEASE_GRANT = "/etcdserverpb.Lease/LeaseGrant";
  public static final String LEASE_REVOKE = "/etcdserverpb.Lease/LeaseRevoke";
  public static final String LEASE_KEEP_ALIVE = "/etcdserverpb.Lease/LeaseKeepAlive";
  public static final String LEASE_TIME_TO_LIVE = "/etcdserverpb.Lease/LeaseTimeToLive";
  public static final String LEASE_LEASES = "/etcdserverpb.Lease/LeaseLeases";
  public static final String MEMBER_LIST = "/etcdserverpb.Cluster/MemberList";
  public static final String STATUS = "/etcdserverpb.Maintenance/Status";

  /** The full name of {@code method} of {@code service} ({@code etcdserverpb.KV}, {@code Put}). */
  public static String of(String service, String method) {
    return "/" + service + "/" + method;
  }
}
