package io.akkaetcd.loadtest;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The tool's timers: one daemon thread each, so that the tool exits when its work is done. */
final class Timers {
  private Timers() {}

  static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }
}
