package io.akkaetcd.loadtest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** User + system CPU of a process so far, from /proc/PID/stat (Linux; 100 clock ticks a second). */
final class ProcessCpu {
  private ProcessCpu() {}

  /** Milliseconds of CPU that process {@code pid} has used. */
  static long millis(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // after "pid (comm) ", field 3 (state) is f[0]: utime is field 14, stime field 15
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * This JVM's CPU: the load tool's own share of the cores it shares with the servers. When the
   * machine is saturated, the throughput ratio of two servers is (tool + etcd) ÷ (tool + akka-etcd)
   * CPU per operation, not the servers' CPU ratio alone.
   */
  static long toolMillis() {
    return millis(ProcessHandle.current().pid());
  }
}
