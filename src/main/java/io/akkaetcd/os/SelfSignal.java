package io.akkaetcd.os;

import jnr.ffi.LibraryLoader;

/** Sends a signal to this process (libc kill), for a process that must end by a signal it caught. */
public final class SelfSignal {
  private static final LibC libc = load();

  public interface LibC {
    int getpid();

    int kill(int pid, int sig);
  }

  private SelfSignal() {}

  /** Sends signal {@code number} to this process; false when libc is not at hand or refused. */
  public static boolean send(int number) {
    return libc != null && libc.kill(libc.getpid(), number) == 0;
  }

  private static LibC load() {
    try {
      return LibraryLoader.create(LibC.class).failImmediately().load("c");
    } catch (Throwable e) { // UnsatisfiedLinkError and the like
      return null;
    }
  }
}
