package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One user's merged key permissions, read and write apart (etcd's unifiedRangePermissions, built
 * like its range_perm_cache): rebuilt whenever the user's roles or those roles' permissions
 * change, so a check is a lookup in {@link KeyRanges}. Immutable.
 */
final class RangePermissions {
  private static final RangePermissions NONE = new RangePermissions(false, KeyRanges.EMPTY, KeyRanges.EMPTY);
  private static final RangePermissions ROOT = new RangePermissions(true, KeyRanges.EMPTY, KeyRanges.EMPTY);

  private final boolean root;
  private final KeyRanges read;
  private final KeyRanges write;

  private RangePermissions(boolean root, KeyRanges read, KeyRanges write) {
    this.root = root;
    this.read = read;
    this.write = write;
  }

  /** The union of the permissions of the user's roles that exist; everything for role root. */
  static RangePermissions of(User user, Map<String, Role> roles) {
    if (user.isRoot()) {
      return ROOT;
    }
    List<KeyRanges.Interval> read = new ArrayList<>();
    List<KeyRanges.Interval> write = new ArrayList<>();
    for (String roleName : user.roles()) {
      Role role = roles.get(roleName);
      if (role == null) {
        continue;
      }
      for (Permission p : role.permissions()) {
        KeyRanges.Interval ivl = granted(p);
        if (ivl == null) {
          continue;
        }
        if (p.type().grants(PermType.READ)) {
          read.add(ivl);
        }
        if (p.type().grants(PermType.WRITE)) {
          write.add(ivl);
        }
      }
    }
    if (read.isEmpty() && write.isEmpty()) {
      return NONE;
    }
    return new RangePermissions(false, KeyRanges.of(read), KeyRanges.of(write));
  }

  /**
   * The interval a permission grants. An empty key grants nothing: etcd's interval tree orders an
   * empty key after every other key, so such a grant never covers a request.
   */
  private static KeyRanges.Interval granted(Permission p) {
    if (p.key().isEmpty()) {
      return null;
    }
    if (p.rangeEnd().isEmpty()) {
      return new KeyRanges.Interval(p.key(), p.key().concat(KeyRanges.ZERO));
    }
    return new KeyRanges.Interval(p.key(), isUnbounded(p.rangeEnd()) ? null : p.rangeEnd());
  }

  static boolean isUnbounded(ByteString rangeEnd) {
    return rangeEnd.size() == 1 && rangeEnd.byteAt(0) == 0;
  }

  /**
   * Whether a request for {@code [key, rangeEnd)} of {@code type} (READ or WRITE) is covered (any
   * request is, for role root), with
   * etcd's request conventions: empty rangeEnd = the key alone, "\0" = from the key on. An empty
   * key is never covered (see {@link #granted}); an empty or inverted range is checked as its key.
   */
  boolean permits(ByteString key, ByteString rangeEnd, PermType type) {
    if (type == PermType.READWRITE) {
      throw new IllegalArgumentException("a request asks for READ or WRITE");
    }
    if (root) {
      return true;
    }
    KeyRanges ranges = type == PermType.READ ? read : write;
    if (key.isEmpty()) {
      return false;
    }
    if (rangeEnd.isEmpty()) {
      return ranges.containsKey(key);
    }
    if (isUnbounded(rangeEnd)) {
      return ranges.contains(key, null);
    }
    if (KeyRanges.ORDER.compare(key, rangeEnd) >= 0) {
      return ranges.containsKey(key);
    }
    return ranges.contains(key, rangeEnd);
  }

  /** The number of merged intervals of the type (READ or WRITE). */
  int mergedCount(PermType type) {
    return (type == PermType.READ ? read : write).size();
  }
}
