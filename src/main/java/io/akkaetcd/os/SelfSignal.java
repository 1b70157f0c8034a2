package io.akkaetcd.os;

/** Sends a signal to this process (libc kill), for a process that must end by a signal it caught. */
public final class SelfSignal {
  private SelfSignal() {}

  /** Sends signal {@code number} to this process; false when libc is not at hand or refused. */
  public static boolean send(int number) {
    Libc libc = Libc.INSTANCE;
    return libc != null && libc.kill(libc.getpid(), number) == 0;
  }
}
