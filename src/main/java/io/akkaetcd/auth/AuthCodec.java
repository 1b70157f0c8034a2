package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of the auth state, byte for byte as etcd keeps it in its buckets: {@code auth}
 * holds "authEnabled" = [1] or [0] and "authRevision" = 8 bytes big-endian; {@code authUsers} maps
 * a name to an authpb.User, {@code authRoles} a name to an authpb.Role. Pure functions.
 */
public final class AuthCodec {
  public static final String AUTH_BUCKET = "auth";
  public static final String USERS_BUCKET = "authUsers";
  public static final String ROLES_BUCKET = "authRoles";
  public static final ByteString ENABLED_KEY = ByteString.copyFromUtf8("authEnabled");
  public static final ByteString REVISION_KEY = ByteString.copyFromUtf8("authRevision");

  private static final ByteString ENABLED = ByteString.copyFrom(new byte[] {1});
  private static final ByteString DISABLED = ByteString.copyFrom(new byte[] {0});

  private AuthCodec() {}

  public static ByteString encodeEnabled(boolean enabled) {
    return enabled ? ENABLED : DISABLED;
  }

  /** etcd reads anything but exactly [1] as disabled. */
  public static boolean decodeEnabled(ByteString value) {
    return value != null && value.equals(ENABLED);
  }

  public static ByteString encodeRevision(long revision) {
    return ByteString.copyFrom(ByteBuffer.allocate(8).putLong(revision).array());
  }

  /** Absent (a store never written) reads as 0, as in etcd. */
  public static long decodeRevision(ByteString value) {
    return value == null || value.size() != 8 ? 0 : value.asReadOnlyByteBuffer().getLong();
  }

  /**
   * A user as etcd 3.4 writes it: options always present (UserAdd stores an empty UserAddOptions
   * when none was given), so the bytes equal etcd's.
   */
  public static ByteString encodeUser(User user) {
    return io.akkaetcd.proto.authpb.User.newBuilder()
        .setName(ByteString.copyFromUtf8(user.name()))
        .setPassword(user.password())
        .addAllRoles(user.roles())
        .setOptions(io.akkaetcd.proto.authpb.UserAddOptions.newBuilder().setNoPassword(user.noPassword()))
        .build()
        .toByteString();
  }

  public static User decodeUser(ByteString bytes) {
    try {
      io.akkaetcd.proto.authpb.User u = io.akkaetcd.proto.authpb.User.parseFrom(bytes);
      return new User(u.getName().toString(StandardCharsets.UTF_8), u.getPassword(), u.getRolesList(),
          u.getOptions().getNoPassword());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not an authpb.User: " + e.getMessage(), e);
    }
  }

  public static ByteString encodeRole(Role role) {
    io.akkaetcd.proto.authpb.Role.Builder b = io.akkaetcd.proto.authpb.Role.newBuilder()
        .setName(ByteString.copyFromUtf8(role.name()));
    role.permissions().forEach(p -> b.addKeyPermission(toProto(p)));
    return b.build().toByteString();
  }

  public static Role decodeRole(ByteString bytes) {
    try {
      io.akkaetcd.proto.authpb.Role r = io.akkaetcd.proto.authpb.Role.parseFrom(bytes);
      List<Permission> perms = new ArrayList<>();
      r.getKeyPermissionList().forEach(p -> perms.add(fromProto(p)));
      return new Role(r.getName().toString(StandardCharsets.UTF_8), perms);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not an authpb.Role: " + e.getMessage(), e);
    }
  }

  public static io.akkaetcd.proto.authpb.Permission toProto(Permission p) {
    return io.akkaetcd.proto.authpb.Permission.newBuilder()
        .setPermTypeValue(p.type().number())
        .setKey(p.key())
        .setRangeEnd(p.rangeEnd())
        .build();
  }

  public static Permission fromProto(io.akkaetcd.proto.authpb.Permission p) {
    return new Permission(PermType.forNumber(p.getPermTypeValue()), p.getKey(), p.getRangeEnd());
  }
}
