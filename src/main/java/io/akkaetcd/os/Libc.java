package io.akkaetcd.os;

import jnr.ffi.LibraryLoader;

/** The few libc calls the os package makes, loaded once through jnr-ffi; null where there is no libc. */
public interface Libc {
  Libc INSTANCE = Loader.load();

  int getpriority(int which, int who);

  int setpriority(int which, int who, int prio);

  int getpid();

  int kill(int pid, int sig);

  /** Holds the loading out of the interface's public face. */
  final class Loader {
    private Loader() {}

    static Libc load() {
      try {
        return LibraryLoader.create(Libc.class).failImmediately().load("c");
      } catch (Throwable e) { // UnsatisfiedLinkError and the like
        return null;
      }
    }
  }
}
