package io.akkaetcd.os;

import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the calling thread's scheduling priority (its nice value, which Linux keeps per thread) so
 * that bulk work such as a snapshot save runs on the CPU that serving leaves idle instead of taking
 * it from requests. Raising one's own nice value needs no privilege. Where it is not Linux or libc
 * cannot be loaded the thread keeps its priority: the work is the same, only its share of the CPU.
 */
public final class BackgroundPriority {
  /** The nice value background threads get: CFS weighs a nice-19 thread at 1.5 % of a nice-0 one. */
  public static final int NICE = Integer.getInteger("akka-etcd.background-nice", 19);
  private static final int PRIO_PROCESS = 0;
  private static final Logger log = LoggerFactory.getLogger(BackgroundPriority.class);
  private static final Libc libc = Libc.INSTANCE;

  private BackgroundPriority() {}

  /**
   * Gives the calling thread {@link #NICE} unless it is already nicer (a member started under
   * {@code nice} keeps its own); false when the system did not take it.
   */
  public static boolean lower() {
    if (libc == null || NICE <= 0) {
      return false;
    }
    try {
      // /proc/thread-self links to "<pid>/task/<tid>": the tid is what setpriority takes for one thread
      Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
      int tid = Integer.parseInt(self.getFileName().toString());
      int nice = Math.max(libc.getpriority(PRIO_PROCESS, tid), Math.min(NICE, 19));
      return libc.setpriority(PRIO_PROCESS, tid, nice) == 0;
    } catch (Exception e) { // no /proc: not Linux
      log.debug("thread priority left as it is: {}", e.toString());
      return false;
    }
  }
}
