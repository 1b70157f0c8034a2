package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import io.akkaetcd.errors.EtcdError;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * etcd's auth store as an immutable value: the enabled flag, the auth revision, users, roles and
 * each user's merged permissions. Every mutation of the Auth service is a method returning the
 * next state, or throwing the {@link io.akkaetcd.errors.EtcdException} etcd 3.4.23 answers (the
 * checks in etcd's order). No clock, no randomness, no I/O: every member's applier computes the
 * same state from the same entries. Being immutable, one published reference can be read by any
 * thread (permission checks on the serving member) while the applier builds the next one.
 *
 * <p>Revision: 1 in a new store (etcd's NewAuthStore), +1 for each mutation that changes
 * something; AuthEnable and an already-held UserGrantRole do not bump it, AuthDisable does.
 */
public final class AuthState {
  /** A new store: disabled, revision 1, no users and no roles. */
  public static final AuthState EMPTY = new AuthState(false, 1, new TreeMap<>(Names.ORDER),
      new TreeMap<>(Names.ORDER), Map.of());

  private final boolean enabled;
  private final long revision;
  private final SortedMap<String, User> users;
  private final SortedMap<String, Role> roles;
  private final Map<String, RangePermissions> permissions;

  private AuthState(boolean enabled, long revision, TreeMap<String, User> users, TreeMap<String, Role> roles,
      Map<String, RangePermissions> permissions) {
    this.enabled = enabled;
    this.revision = revision;
    this.users = Collections.unmodifiableSortedMap(users);
    this.roles = Collections.unmodifiableSortedMap(roles);
    this.permissions = permissions;
  }

  /** The state recovered from stored rows (the backend or a snapshot). */
  public static AuthState of(boolean enabled, long revision, List<User> users, List<Role> roles) {
    TreeMap<String, User> u = new TreeMap<>(Names.ORDER);
    users.forEach(user -> u.put(user.name(), user));
    TreeMap<String, Role> r = new TreeMap<>(Names.ORDER);
    roles.forEach(role -> r.put(role.name(), role));
    Map<String, RangePermissions> perms = new HashMap<>();
    u.values().forEach(user -> perms.put(user.name(), RangePermissions.of(user, r)));
    return new AuthState(enabled, revision, u, r, Map.copyOf(perms));
  }

  public boolean enabled() {
    return enabled;
  }

  public long revision() {
    return revision;
  }

  /** Users by name, in etcd's order. */
  public SortedMap<String, User> users() {
    return users;
  }

  /** Roles by name, in etcd's order. */
  public SortedMap<String, Role> roles() {
    return roles;
  }

  // ---- AuthEnable / AuthDisable ----

  /** Needs user root holding role root; enabling twice is a no-op. No revision bump. */
  public AuthState authEnable() {
    if (enabled) {
      return this;
    }
    User root = users.get(User.ROOT);
    if (root == null) {
      throw EtcdError.ROOT_USER_NOT_EXIST.exception();
    }
    if (!root.isRoot()) {
      throw EtcdError.ROOT_ROLE_NOT_EXIST.exception();
    }
    return new AuthState(true, revision, new TreeMap<>(users), new TreeMap<>(roles), permissions);
  }

  /** Disabling a disabled store is a no-op; otherwise the revision is bumped. */
  public AuthState authDisable() {
    if (!enabled) {
      return this;
    }
    return new AuthState(false, revision + 1, new TreeMap<>(users), new TreeMap<>(roles), permissions);
  }

  // ---- users ----

  /** {@code hash}: the bcrypt hash made before the proposal; ignored for a no-password user. */
  public AuthState userAdd(String name, ByteString hash, boolean noPassword) {
    if (name.isEmpty()) {
      throw EtcdError.USER_EMPTY.exception();
    }
    if (users.containsKey(name)) {
      throw EtcdError.USER_ALREADY_EXIST.exception();
    }
    TreeMap<String, User> u = new TreeMap<>(users);
    u.put(name, new User(name, noPassword ? ByteString.EMPTY : hash, List.of(), noPassword));
    return next(u, new TreeMap<>(roles), Set.of());
  }

  /** Root cannot be deleted while auth is on. The caller drops the user's tokens. */
  public AuthState userDelete(String name) {
    if (enabled && name.equals(User.ROOT)) {
      throw EtcdError.INVALID_AUTH_MGMT.exception();
    }
    user(name);
    TreeMap<String, User> u = new TreeMap<>(users);
    u.remove(name);
    return next(u, new TreeMap<>(roles), Set.of());
  }

  /** Keeps roles and the no-password option (as etcd 3.4). The caller drops the user's tokens. */
  public AuthState userChangePassword(String name, ByteString hash) {
    User user = user(name);
    TreeMap<String, User> u = new TreeMap<>(users);
    u.put(name, user.withPassword(hash));
    return next(u, new TreeMap<>(roles), Set.of());
  }

  /** Role root may be granted before a role of that name exists; a held role changes nothing. */
  public AuthState userGrantRole(String name, String role) {
    User user = user(name);
    if (!role.equals(Role.ROOT) && !roles.containsKey(role)) {
      throw EtcdError.ROLE_NOT_FOUND.exception();
    }
    if (user.hasRole(role)) {
      return this;
    }
    List<String> held = new ArrayList<>(user.roles());
    held.add(role);
    held.sort(Names.ORDER);
    TreeMap<String, User> u = new TreeMap<>(users);
    u.put(name, user.withRoles(held));
    return next(u, new TreeMap<>(roles), Set.of());
  }

  /** Role root cannot be revoked from user root while auth is on. */
  public AuthState userRevokeRole(String name, String role) {
    if (enabled && name.equals(User.ROOT) && role.equals(Role.ROOT)) {
      throw EtcdError.INVALID_AUTH_MGMT.exception();
    }
    User user = user(name);
    if (!user.hasRole(role)) {
      throw EtcdError.ROLE_NOT_GRANTED.exception();
    }
    List<String> held = new ArrayList<>(user.roles());
    held.remove(role);
    TreeMap<String, User> u = new TreeMap<>(users);
    u.put(name, user.withRoles(held));
    return next(u, new TreeMap<>(roles), Set.of());
  }

  /** The user's roles (UserGet). */
  public List<String> userGet(String name) {
    return user(name).roles();
  }

  /** Every user name in etcd's order (UserList). */
  public List<String> userList() {
    return List.copyOf(users.keySet());
  }

  /** The user, or etcd's "user name not found". */
  public User user(String name) {
    User user = users.get(name);
    if (user == null) {
      throw EtcdError.USER_NOT_FOUND.exception();
    }
    return user;
  }

  // ---- roles ----

  public AuthState roleAdd(String name) {
    if (name.isEmpty()) {
      throw EtcdError.ROLE_EMPTY.exception();
    }
    if (roles.containsKey(name)) {
      throw EtcdError.ROLE_ALREADY_EXIST.exception();
    }
    TreeMap<String, Role> r = new TreeMap<>(roles);
    r.put(name, new Role(name, List.of()));
    return next(new TreeMap<>(users), r, Set.of(name));
  }

  /** Role root cannot be deleted while auth is on; the role is taken from every user holding it. */
  public AuthState roleDelete(String name) {
    if (enabled && name.equals(Role.ROOT)) {
      throw EtcdError.INVALID_AUTH_MGMT.exception();
    }
    role(name);
    TreeMap<String, Role> r = new TreeMap<>(roles);
    r.remove(name);
    TreeMap<String, User> u = new TreeMap<>(users);
    for (User user : users.values()) {
      if (user.hasRole(name)) {
        List<String> held = new ArrayList<>(user.roles());
        held.remove(name);
        u.put(user.name(), user.withRoles(held));
      }
    }
    return next(u, r, Set.of(name));
  }

  /**
   * Grants or updates a permission as etcd does: only the first permission whose key is not below
   * the new key is compared, and when it has the same key and range_end its type is replaced;
   * otherwise the permission is added after those with a key not above its own (etcd appends and
   * sorts by key). So a second range_end on a key already granted twice may be stored twice, as
   * in etcd. No range validation (3.4.23); a range that is empty grants nothing.
   *
   * @param perm null answers etcd 3.4.25's "permission not given" (3.4.23 would crash)
   */
  public AuthState roleGrantPermission(String name, Permission perm) {
    if (perm == null) {
      throw EtcdError.PERMISSION_NOT_GIVEN.exception();
    }
    Role role = role(name);
    List<Permission> perms = new ArrayList<>(role.permissions());
    int idx = 0;
    while (idx < perms.size() && KeyRanges.ORDER.compare(perms.get(idx).key(), perm.key()) < 0) {
      idx++;
    }
    if (idx < perms.size() && perms.get(idx).sameRange(perm.key(), perm.rangeEnd())) {
      perms.set(idx, perm);
    } else {
      int at = idx;
      while (at < perms.size() && perms.get(at).key().equals(perm.key())) {
        at++;
      }
      perms.add(at, perm);
    }
    TreeMap<String, Role> r = new TreeMap<>(roles);
    r.put(name, new Role(name, perms));
    return next(new TreeMap<>(users), r, Set.of(name));
  }

  /** Removes every permission with exactly this key and range_end. */
  public AuthState roleRevokePermission(String name, ByteString key, ByteString rangeEnd) {
    Role role = role(name);
    List<Permission> perms = new ArrayList<>(role.permissions());
    if (!perms.removeIf(p -> p.sameRange(key, rangeEnd))) {
      throw EtcdError.PERMISSION_NOT_GRANTED.exception();
    }
    TreeMap<String, Role> r = new TreeMap<>(roles);
    r.put(name, new Role(name, perms));
    return next(new TreeMap<>(users), r, Set.of(name));
  }

  /** The role's permissions (RoleGet). */
  public List<Permission> roleGet(String name) {
    return role(name).permissions();
  }

  /** Every role name in etcd's order (RoleList). */
  public List<String> roleList() {
    return List.copyOf(roles.keySet());
  }

  private Role role(String name) {
    Role role = roles.get(name);
    if (role == null) {
      throw EtcdError.ROLE_NOT_FOUND.exception();
    }
    return role;
  }

  /**
   * The state after a mutation: revision + 1, and the merged permissions rebuilt for the users
   * whose record changed or who hold a changed role; the others' are shared.
   */
  private AuthState next(TreeMap<String, User> u, TreeMap<String, Role> r, Set<String> changedRoles) {
    Map<String, RangePermissions> perms = new HashMap<>();
    for (User user : u.values()) {
      RangePermissions old = permissions.get(user.name());
      boolean stale = old == null || !user.roles().equals(users.get(user.name()).roles())
          || user.roles().stream().anyMatch(changedRoles::contains);
      perms.put(user.name(), stale ? RangePermissions.of(user, r) : old);
    }
    return new AuthState(enabled, revision + 1, u, r, Map.copyOf(perms));
  }

  // ---- checks ----

  /**
   * etcd's isOpPermitted, in its order: auth off allows; no credential (revision 0) is "user name
   * is empty"; a credential older than the store is "revision of auth store is old"; an unknown
   * user is "permission denied"; role root allows; otherwise the range must be covered.
   */
  public void checkPermitted(AuthInfo who, ByteString key, ByteString rangeEnd, PermType type) {
    if (!enabled) {
      return;
    }
    checkCredential(who);
    if (!isRangePermitted(who.username(), key, rangeEnd, type)) {
      throw EtcdError.PERMISSION_DENIED.exception();
    }
  }

  /**
   * A user is required (etcd 3.5.28's lease RPCs): isOpPermitted's order without the range test,
   * so no credential is "user name is empty", an old one "revision of auth store is old", an
   * unknown user "permission denied".
   */
  public void checkUser(AuthInfo who) {
    if (!enabled) {
      return;
    }
    checkCredential(who);
    if (!users.containsKey(who.username())) {
      throw EtcdError.PERMISSION_DENIED.exception();
    }
  }

  /** No credential (revision 0) is "user name is empty"; one older than the store is "old". */
  private void checkCredential(AuthInfo who) {
    if (who == null || who.revision() == 0) {
      throw EtcdError.USER_EMPTY.exception();
    }
    if (who.revision() < revision) {
      throw EtcdError.AUTH_OLD_REVISION.exception();
    }
  }

  /**
   * Whether the user may {@code type} (READ or WRITE) the keys {@code [key, rangeEnd)} (empty
   * rangeEnd: the key; "\0": from the key on), whether or not auth is on: role root may do
   * everything, an unknown user nothing. O(log n) in the user's granted ranges.
   */
  public boolean isRangePermitted(String username, ByteString key, ByteString rangeEnd, PermType type) {
    RangePermissions perms = permissions.get(username); // a hash lookup: this is every request's path
    return perms != null && perms.permits(key, rangeEnd, type);
  }

  /** etcd's IsAdminPermitted: auth off allows; then no user, an unknown user, a user not root. */
  public void checkAdmin(AuthInfo who) {
    if (!enabled) {
      return;
    }
    if (who == null || who.username().isEmpty()) {
      throw EtcdError.USER_EMPTY.exception();
    }
    User user = users.get(who.username());
    if (user == null) {
      throw EtcdError.USER_NOT_FOUND.exception();
    }
    if (!user.isRoot()) {
      throw EtcdError.PERMISSION_DENIED.exception();
    }
  }

  /**
   * The stored hash to check a password against, before Authenticate is proposed (etcd's
   * CheckPassword): auth must be on, the user known and not a no-password user.
   */
  public ByteString passwordHash(String username) {
    if (!enabled) {
      throw EtcdError.AUTH_NOT_ENABLED.exception();
    }
    User user = users.get(username);
    if (user == null) {
      throw EtcdError.AUTH_FAILED.exception();
    }
    if (user.noPassword()) {
      throw EtcdError.NO_PASSWORD_USER.exception();
    }
    return user.password();
  }

  /** etcd's Authenticate at apply, before a token is assigned: auth on, user known, has a password. */
  public void checkAuthenticate(String username) {
    if (!enabled) {
      throw EtcdError.AUTH_NOT_ENABLED.exception();
    }
    User user = users.get(username);
    if (user == null || user.noPassword()) {
      throw EtcdError.AUTH_FAILED.exception();
    }
  }

  /**
   * The users whose tokens must go after the step from {@code before} to this state: removed
   * users and users whose password hash changed (etcd's invalidateUser in UserDelete and
   * UserChangePassword).
   */
  public List<String> credentialsChangedSince(AuthState before) {
    List<String> changed = new ArrayList<>();
    for (User old : before.users.values()) {
      User now = users.get(old.name());
      if (now == null || !now.password().equals(old.password())) {
        changed.add(old.name());
      }
    }
    return changed;
  }

  /** The merged read or write intervals of a user (tests; a lookup is logarithmic in this). */
  int mergedRanges(String username, PermType type) {
    return permissions.get(username).mergedCount(type);
  }
}
