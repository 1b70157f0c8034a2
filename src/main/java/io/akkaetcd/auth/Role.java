package io.akkaetcd.auth;

import java.util.List;
import java.util.Objects;

/**
 * A role as etcd stores it (authpb.Role): key permissions ordered by key, ties in the order they
 * were granted (etcd appends and sorts by key alone). Immutable.
 */
public record Role(String name, List<Permission> permissions) {
  public static final String ROOT = "root";

  public Role {
    Objects.requireNonNull(name, "name");
    permissions = List.copyOf(permissions);
  }
}
