package io.akkaetcd.auth;

import static io.akkaetcd.auth.AuthStateTest.HASH;
import static io.akkaetcd.auth.AuthStateTest.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** etcd's range semantics of permissions (range_perm_cache.go) against the merged interval sets. */
class RangePermissionsTest {
  private static AuthState withGrants(Permission... perms) {
    AuthState s = AuthState.EMPTY.userAdd("u", HASH, false).roleAdd("r").userGrantRole("u", "r");
    for (Permission p : perms) {
      s = s.roleGrantPermission("r", p);
    }
    return s;
  }

  private static Permission p(PermType t, String key, String end) {
    return new Permission(t, b(key), b(end));
  }

  private static boolean read(AuthState s, String key, String end) {
    return s.isRangePermitted("u", b(key), b(end), PermType.READ);
  }

  private static boolean write(AuthState s, String key, String end) {
    return s.isRangePermitted("u", b(key), b(end), PermType.WRITE);
  }

  @Test
  void singleKeyPermission() {
    AuthState s = withGrants(p(PermType.READ, "foo", ""));
    assertTrue(read(s, "foo", ""));
    assertFalse(read(s, "foo0", ""));
    assertFalse(read(s, "fo", ""));
    assertFalse(write(s, "foo", ""));
    assertTrue(read(s, "foo", "foo\0")); // the range of the key alone
    assertFalse(read(s, "foo", "fop"));
  }

  @Test
  void rangeAndPrefixPermission() {
    AuthState s = withGrants(p(PermType.WRITE, "a", "c"));
    assertTrue(write(s, "a", ""));
    assertTrue(write(s, "b", ""));
    assertTrue(write(s, "bzzz", ""));
    assertFalse(write(s, "c", ""));
    assertTrue(write(s, "a", "c"));
    assertTrue(write(s, "ab", "b"));
    assertFalse(write(s, "a", "c\0"));
    assertFalse(write(s, "a", "\0"));
    assertFalse(read(s, "a", ""));
  }

  @Test
  void fromKeyPermissionReachesInfinity() {
    AuthState s = withGrants(p(PermType.READ, "m", "\0"));
    assertTrue(read(s, "m", "\0"));
    assertTrue(read(s, "zzzz", "\0"));
    assertTrue(read(s, "\u00ff", ""));
    assertFalse(read(s, "l", "\0"));
    assertFalse(read(s, "a", "n"));
  }

  @Test
  void readWriteCountsForBoth() {
    AuthState s = withGrants(p(PermType.READWRITE, "k", ""));
    assertTrue(read(s, "k", ""));
    assertTrue(write(s, "k", ""));
  }

  @Test
  void requestMustLieInTheUnionOfGrants() {
    AuthState s = withGrants(p(PermType.READ, "a", "c"), p(PermType.READ, "c", "e"), p(PermType.READ, "g", "i"),
        p(PermType.READWRITE, "e", ""));
    assertTrue(read(s, "a", "e")); // adjacent grants join
    assertTrue(read(s, "b", "e\0")); // and the single key e joins them too
    assertFalse(read(s, "b", "e\0\0"));
    assertFalse(read(s, "a", "h")); // gap [e\0, g)
    assertTrue(read(s, "g", "i"));
    assertEquals(2, s.mergedRanges("u", PermType.READ));
    assertEquals(1, s.mergedRanges("u", PermType.WRITE));
  }

  @Test
  void permissionsOfEveryRoleCount() {
    AuthState s = withGrants(p(PermType.READ, "a", "b")).roleAdd("r2")
        .roleGrantPermission("r2", p(PermType.READ, "b", "c")).userGrantRole("u", "r2");
    assertTrue(read(s, "a", "c"));
    assertFalse(read(s.userRevokeRole("u", "r2"), "a", "c"));
    assertFalse(read(s.roleDelete("r2"), "a", "c"));
    assertFalse(read(s.roleRevokePermission("r2", b("b"), b("c")), "a", "c"));
  }

  @Test
  void emptyKeysAndInvertedRangesGrantNothing() {
    // etcd's interval tree orders an empty key after every key: such a grant never matches
    AuthState s = withGrants(p(PermType.READ, "", "\0"), p(PermType.READ, "x", "b"));
    assertFalse(read(s, "a", ""));
    assertFalse(read(s, "x", ""));
    assertFalse(read(s, "", "\0"));
  }

  @Test
  void rootRoleAllowsEverythingAndUnknownUsersNothing() {
    AuthState s = AuthState.EMPTY.userAdd("root", HASH, false).userGrantRole("root", "root");
    assertTrue(s.isRangePermitted("root", b("\0"), b("\0"), PermType.WRITE));
    assertFalse(s.isRangePermitted("nobody", b("a"), b(""), PermType.READ));
  }

  /**
   * A thousand disjoint ranges on one role: each check is one floor lookup among the merged
   * intervals, and its answers agree with a linear scan of the grants (the definition).
   */
  @Test
  void thousandRangesOnOneRoleAnswerAsTheDefinition() {
    AuthState s = AuthState.EMPTY.userAdd("u", HASH, false).roleAdd("r").userGrantRole("u", "r");
    List<Permission> grants = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      // [k0000, k0000x), [k0001, k0001x), ...: disjoint, none touching
      Permission grant = p(PermType.READ, String.format("k%04d", i), String.format("k%04dx", i));
      grants.add(grant);
      s = s.roleGrantPermission("r", grant);
    }
    assertEquals(1000, s.roleGet("r").size());
    assertEquals(1000, s.mergedRanges("u", PermType.READ));
    Random random = new Random(42);
    for (int n = 0; n < 20_000; n++) {
      int i = random.nextInt(1000);
      String key = String.format("k%04d", i) + (char) ('a' + random.nextInt(26)) + (random.nextBoolean() ? "" : "y");
      String end = random.nextInt(4) == 0 ? "" : key + (char) ('a' + random.nextInt(26));
      if (random.nextInt(10) == 0) {
        end = String.format("k%04d", random.nextInt(1000));
      }
      assertEquals(linear(grants, b(key), b(end)), read(s, key, end), key + " .. " + end);
    }
    assertTrue(read(s, "k0500", "k0500x"));
    assertFalse(read(s, "k0500", "k0501"));
    assertFalse(read(s, "k0500x", ""));
  }

  /** Coverage by a single grant (the grants are disjoint and do not touch, so the union adds nothing). */
  private static boolean linear(List<Permission> grants, ByteString key, ByteString end) {
    ByteString stop = end.isEmpty() ? key.concat(KeyRanges.ZERO) : end;
    if (KeyRanges.ORDER.compare(key, stop) >= 0) {
      stop = key.concat(KeyRanges.ZERO);
    }
    for (Permission g : grants) {
      if (KeyRanges.ORDER.compare(g.key(), key) <= 0 && KeyRanges.ORDER.compare(stop, g.rangeEnd()) <= 0) {
        return true;
      }
    }
    return false;
  }
}
