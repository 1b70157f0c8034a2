package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Objects;

/**
 * A user as etcd stores it (authpb.User): the bcrypt hash (empty for a no-password user, who can
 * only act through a client certificate's CN) and its roles in etcd's order ({@link Names#ORDER},
 * Go's sort.Strings). Immutable.
 */
public record User(String name, ByteString password, List<String> roles, boolean noPassword) {
  public static final String ROOT = "root";

  public User {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(password, "password");
    roles = List.copyOf(roles);
  }

  public boolean hasRole(String role) {
    return roles.contains(role);
  }

  /** etcd's hasRootRole: the role named root, whether or not a role of that name exists. */
  public boolean isRoot() {
    return hasRole(Role.ROOT);
  }

  User withRoles(List<String> newRoles) {
    return new User(name, password, newRoles, noPassword);
  }

  User withPassword(ByteString hash) {
    return new User(name, hash, roles, noPassword);
  }
}
