package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import java.util.Objects;

/**
 * One key permission of a role (authpb.Permission): {@code rangeEnd} empty = the single key,
 * {@code "\0"} = every key from {@code key} on, otherwise {@code [key, rangeEnd)}.
 */
public record Permission(PermType type, ByteString key, ByteString rangeEnd) {
  public Permission {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(rangeEnd, "rangeEnd");
  }

  /** The same range: etcd matches a grant's update and a revoke on (key, range_end) bytes. */
  boolean sameRange(ByteString otherKey, ByteString otherRangeEnd) {
    return key.equals(otherKey) && rangeEnd.equals(otherRangeEnd);
  }
}
