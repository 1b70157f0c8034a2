package io.akkaetcd.auth;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The auth state as backend rows ({@link AuthCodec}'s buckets): all of them for a snapshot, the
 * changed ones after a mutation (to write in the applier's batch with the applied index), and the
 * state read back from them.
 */
public final class AuthRows {
  /** One row; {@code value == null} deletes it. */
  public record Row(String bucket, ByteString key, ByteString value) {
    public Row {
      Objects.requireNonNull(bucket, "bucket");
      Objects.requireNonNull(key, "key");
    }
  }

  private AuthRows() {}

  /** Every row of the state: the flag, the revision, each user and role. */
  public static List<Row> all(AuthState state) {
    List<Row> rows = new ArrayList<>();
    rows.add(new Row(AuthCodec.AUTH_BUCKET, AuthCodec.ENABLED_KEY, AuthCodec.encodeEnabled(state.enabled())));
    rows.add(new Row(AuthCodec.AUTH_BUCKET, AuthCodec.REVISION_KEY, AuthCodec.encodeRevision(state.revision())));
    state.users().values().forEach(u -> rows.add(userRow(u)));
    state.roles().values().forEach(r -> rows.add(roleRow(r)));
    return rows;
  }

  /** The rows to write to go from {@code before} to {@code after}: only what differs. */
  public static List<Row> diff(AuthState before, AuthState after) {
    List<Row> rows = new ArrayList<>();
    if (before.enabled() != after.enabled()) {
      rows.add(new Row(AuthCodec.AUTH_BUCKET, AuthCodec.ENABLED_KEY, AuthCodec.encodeEnabled(after.enabled())));
    }
    if (before.revision() != after.revision()) {
      rows.add(new Row(AuthCodec.AUTH_BUCKET, AuthCodec.REVISION_KEY, AuthCodec.encodeRevision(after.revision())));
    }
    diff(before.users(), after.users(), AuthCodec.USERS_BUCKET, AuthRows::userRow, rows);
    diff(before.roles(), after.roles(), AuthCodec.ROLES_BUCKET, AuthRows::roleRow, rows);
    return rows;
  }

  private static <T> void diff(Map<String, T> before, Map<String, T> after, String bucket,
      java.util.function.Function<T, Row> row, List<Row> rows) {
    before.keySet().stream().filter(k -> !after.containsKey(k))
        .forEach(k -> rows.add(new Row(bucket, ByteString.copyFromUtf8(k), null)));
    after.forEach((k, v) -> {
      if (!v.equals(before.get(k))) {
        rows.add(row.apply(v));
      }
    });
  }

  /**
   * The state the rows hold. No revision row reads as a new store (revision 1, as etcd's
   * NewAuthStore commits it).
   */
  public static AuthState load(List<Row> rows) {
    boolean enabled = false;
    long revision = 0;
    List<User> users = new ArrayList<>();
    List<Role> roles = new ArrayList<>();
    for (Row row : rows) {
      switch (row.bucket()) {
        case AuthCodec.AUTH_BUCKET -> {
          if (row.key().equals(AuthCodec.ENABLED_KEY)) {
            enabled = AuthCodec.decodeEnabled(row.value());
          } else if (row.key().equals(AuthCodec.REVISION_KEY)) {
            revision = AuthCodec.decodeRevision(row.value());
          }
        }
        case AuthCodec.USERS_BUCKET -> users.add(AuthCodec.decodeUser(row.value()));
        case AuthCodec.ROLES_BUCKET -> roles.add(AuthCodec.decodeRole(row.value()));
        default -> throw new IllegalArgumentException("not an auth bucket: " + row.bucket());
      }
    }
    return AuthState.of(enabled, revision == 0 ? 1 : revision, users, roles);
  }

  private static Row userRow(User u) {
    return new Row(AuthCodec.USERS_BUCKET, ByteString.copyFromUtf8(u.name()), AuthCodec.encodeUser(u));
  }

  private static Row roleRow(Role r) {
    return new Row(AuthCodec.ROLES_BUCKET, ByteString.copyFromUtf8(r.name()), AuthCodec.encodeRole(r));
  }
}
