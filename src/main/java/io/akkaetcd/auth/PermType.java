package io.akkaetcd.auth;

/**
 * etcd's authpb.Permission.Type, numbered as on the wire. A request asks for READ or WRITE; a
 * granted READWRITE serves both (etcd's range_perm_cache inserts it into both trees).
 */
public enum PermType {
  READ(0), WRITE(1), READWRITE(2);

  private final int number;

  PermType(int number) {
    this.number = number;
  }

  /** The authpb enum number. */
  public int number() {
    return number;
  }

  public static PermType forNumber(int number) {
    for (PermType t : values()) {
      if (t.number == number) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown permission type " + number);
  }

  /** Whether a permission of this type grants a request for {@code requested} (READ or WRITE). */
  boolean grants(PermType requested) {
    return this == READWRITE || this == requested;
  }
}
