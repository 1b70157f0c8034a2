package io.akkaetcd.embed;

import io.akkaetcd.api.ClientServices;
import java.util.concurrent.Executor;

/**
 * An in-process client of one running member: etcd's v3 API with the wire API's semantics and
 * errors, without gRPC, HTTP/2 or protobuf encoding. Requests are the etcd protobuf messages,
 * handed to the very service instances the member's client URLs serve, so reads, writes,
 * forwarding on a follower, watch and lease behave as over gRPC. Failures are
 * {@link io.akkaetcd.errors.EtcdException}s carrying etcd's {@link io.akkaetcd.errors.EtcdError}.
 * Results complete on the member's default dispatcher. Thread-safe; get it from
 * {@code EtcdServer#client()}. It lives as long as the member: after the member stops, calls fail
 * with {@code etcdserver: server stopped} or are rejected.
 */
public final class EtcdClient {
  private final Kv kv;
  private final Watch watch;
  private final Lease lease;
  private final Members members;

  private EtcdClient(Calls calls, ClientServices services) {
    this.kv = new Kv(calls, services.kv());
    this.watch = new Watch(calls, services.watch());
    this.lease = new Lease(calls, services.lease());
    this.members = new Members(calls, services.cluster(), services.maintenance());
  }

  /** A client of a member through its {@code services} and their pipeline; results complete on {@code executor}. */
  public static EtcdClient create(ClientServices services, Executor executor) {
    return new EtcdClient(new Calls(services.pipeline(), executor), services);
  }

  public Kv kv() {
    return kv;
  }

  public Watch watch() {
    return watch;
  }

  public Lease lease() {
    return lease;
  }

  public Members members() {
    return members;
  }
}
