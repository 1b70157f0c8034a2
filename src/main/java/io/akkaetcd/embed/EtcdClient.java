package io.akkaetcd.embed;

import io.akkaetcd.api.ClientServices;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An in-process client of one running member: etcd's v3 API with the wire API's semantics and
 * errors, without gRPC, HTTP/2 or protobuf encoding. Requests are the etcd protobuf messages,
 * handed to the very service instances the member's client URLs serve, so reads, writes,
 * forwarding on a follower, watch and lease behave as over gRPC. Failures are
 * {@link io.akkaetcd.errors.EtcdException}s carrying etcd's {@link io.akkaetcd.errors.EtcdError}.
 * Results complete on the member's default dispatcher. Thread-safe; get it from
 * {@link EmbeddedEtcd#client()}, which follows the member across its internal restarts. It lives
 * as long as the member: after the member stops, calls fail with {@code etcdserver: server
 * stopped} or are rejected.
 */
public final class EtcdClient {
  private record Parts(Kv kv, Watch watch, Lease lease, Members members) {}

  /** This client's services; for an {@link EmbeddedEtcd}'s client, those of its current incarnation. */
  private final Supplier<Parts> parts;
  /** The same client acting as another user. */
  private final Function<String, EtcdClient> asUser;

  private EtcdClient(Supplier<Parts> parts, Function<String, EtcdClient> asUser) {
    this.parts = parts;
    this.asUser = asUser;
  }

  /** A client of a member through its {@code services} and their pipeline; results complete on {@code executor}. */
  public static EtcdClient create(ClientServices services, Executor executor) {
    return create(services, executor, null);
  }

  private static EtcdClient create(ClientServices services, Executor executor, String user) {
    Calls calls = new Calls(services.pipeline(), executor, user);
    Parts p = new Parts(new Kv(calls, services.kv()), new Watch(calls, services.watch()),
        new Lease(calls, services.lease()), new Members(calls, services.cluster(), services.maintenance()));
    return new EtcdClient(() -> p, u -> create(services, executor, u));
  }

  /**
   * This client acting as {@code user} while auth is on: its calls are checked against the
   * user's roles, without a password or token (code in the member's JVM is trusted with a name;
   * see docs/auth.md). A client not given a user is anonymous, refused what needs one.
   */
  public EtcdClient asUser(String user) {
    return asUser.apply(user);
  }

  /**
   * A client that calls whichever client {@code current} gives at each call: a member that
   * restarts internally (a new Akka incarnation) stays reachable through one client. Streams
   * already open stay on the incarnation they were opened on, and end with it.
   */
  static EtcdClient following(Supplier<EtcdClient> current) {
    return following(current, null);
  }

  private static EtcdClient following(Supplier<EtcdClient> current, String user) {
    return new EtcdClient(() -> (user == null ? current.get() : current.get().asUser(user)).parts.get(),
        u -> following(current, u));
  }

  public Kv kv() {
    return parts.get().kv();
  }

  public Watch watch() {
    return parts.get().watch();
  }

  public Lease lease() {
    return parts.get().lease();
  }

  public Members members() {
    return parts.get().members();
  }
}
