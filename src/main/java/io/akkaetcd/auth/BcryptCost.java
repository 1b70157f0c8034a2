package io.akkaetcd.auth;

/**
 * etcd's {@code --bcrypt-cost}: 10 by default; a cost outside bcrypt's 4..31 falls back to 10
 * (etcd logs a warning and goes on, it does not refuse to start).
 */
public final class BcryptCost {
  public static final int MIN = 4;
  public static final int MAX = 31;
  public static final int DEFAULT = 10;

  private BcryptCost() {}

  /** The cost etcd would use for the flag's value. */
  public static int of(int flag) {
    return flag < MIN || flag > MAX ? DEFAULT : flag;
  }
}
