package io.akkaetcd.loadtest;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.akkaetcd.proto.authpb.Permission;
import io.akkaetcd.proto.etcdserverpb.*;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Auth for the benchmarks: {@link #enable} sets a server up as etcdctl would (root with the root
 * role, then users with prefix permissions, then AuthEnable), and {@code authenticate} measures
 * Authenticate calls, each a bcrypt comparison on the server.
 */
final class AuthLoad {
  /** The password of every user {@link #enable} makes. */
  static final String PASSWORD = "bench-pw";
  /** The prefix every benchmark user may read and write; the put workloads write under it. */
  static final String PREFIX = "bench/";

  private static final MethodDescriptor<AuthUserAddRequest, AuthUserAddResponse> USER_ADD =
      Rpc.unary("etcdserverpb.Auth/UserAdd", AuthUserAddRequest.getDefaultInstance(), AuthUserAddResponse.getDefaultInstance());
  private static final MethodDescriptor<AuthRoleAddRequest, AuthRoleAddResponse> ROLE_ADD =
      Rpc.unary("etcdserverpb.Auth/RoleAdd", AuthRoleAddRequest.getDefaultInstance(), AuthRoleAddResponse.getDefaultInstance());
  private static final MethodDescriptor<AuthUserGrantRoleRequest, AuthUserGrantRoleResponse> USER_GRANT_ROLE =
      Rpc.unary("etcdserverpb.Auth/UserGrantRole", AuthUserGrantRoleRequest.getDefaultInstance(),
          AuthUserGrantRoleResponse.getDefaultInstance());
  private static final MethodDescriptor<AuthRoleGrantPermissionRequest, AuthRoleGrantPermissionResponse> ROLE_GRANT_PERMISSION =
      Rpc.unary("etcdserverpb.Auth/RoleGrantPermission", AuthRoleGrantPermissionRequest.getDefaultInstance(),
          AuthRoleGrantPermissionResponse.getDefaultInstance());
  private static final MethodDescriptor<AuthEnableRequest, AuthEnableResponse> AUTH_ENABLE =
      Rpc.unary("etcdserverpb.Auth/AuthEnable", AuthEnableRequest.getDefaultInstance(), AuthEnableResponse.getDefaultInstance());

  private AuthLoad() {}

  /**
   * Turns auth on: users root (role root), bench (role bench: readwrite on {@link #PREFIX}) and
   * bench1000 (role bench1000: readwrite on 1,000 prefixes, {@code bench-0000/} … {@code
   * bench-0998/} and, sorting after them all, {@link #PREFIX}), every one with {@link #PASSWORD}.
   */
  static void enable(ManagedChannel ch) {
    addUser(ch, "root", "root");
    addUser(ch, "bench", "bench");
    addUser(ch, "bench1000", "bench1000");
    grant(ch, "bench", PREFIX);
    for (int i = 0; i < 999; i++) {
      grant(ch, "bench1000", String.format(Locale.ROOT, "bench-%04d/", i));
    }
    grant(ch, "bench1000", PREFIX);
    await(ch, AUTH_ENABLE, AuthEnableRequest.getDefaultInstance());
  }

  private static void addUser(ManagedChannel ch, String user, String role) {
    await(ch, USER_ADD, AuthUserAddRequest.newBuilder().setName(user).setPassword(PASSWORD).build());
    await(ch, ROLE_ADD, AuthRoleAddRequest.newBuilder().setName(role).build());
    await(ch, USER_GRANT_ROLE, AuthUserGrantRoleRequest.newBuilder().setUser(user).setRole(role).build());
  }

  /** Readwrite on every key with {@code prefix}. */
  private static void grant(ManagedChannel ch, String role, String prefix) {
    ByteString key = ByteString.copyFromUtf8(prefix);
    byte[] end = key.toByteArray();
    end[end.length - 1]++; // the prefix's range end, as etcdctl --prefix makes it (no prefix here ends in 0xff)
    await(ch, ROLE_GRANT_PERMISSION, AuthRoleGrantPermissionRequest.newBuilder().setName(role)
        .setPerm(Permission.newBuilder().setPermType(Permission.Type.READWRITE).setKey(key)
            .setRangeEnd(ByteString.copyFrom(end))).build());
  }

  private static <Q extends Message, R> void await(ManagedChannel ch, MethodDescriptor<Q, R> m, Q req) {
    try {
      Rpc.call(ch, m, req).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(m.getFullMethodName() + " failed", e);
    }
  }

  /** authenticate: Authenticate calls as --auth-name (bench) with {@link #PASSWORD}, closed loop. */
  static Report authenticate(Options o, List<ManagedChannel> ch, int clients, long total, double rate)
      throws InterruptedException {
    AuthenticateRequest req = AuthenticateRequest.newBuilder().setName(o.string("auth-name", "bench"))
        .setPassword(o.string("auth-password", PASSWORD)).build();
    return ClosedLoop.run("authenticate", ch, clients, total, rate,
        (c, client, seq, done) -> Rpc.call(c, Rpc.AUTHENTICATE, req, (r, s) -> done.accept(s)));
  }
}
