package io.akkaetcd.alarm;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The free space of the filesystem holding a member's data directory, against a reserve.
 * Below the reserve the disk is {@link #low()}: the member raises NOSPACE and refuses writes
 * (etcd panics on ENOSPC instead). Below half of it the disk is {@link #exhausted()}: the Raft
 * member stops writing its log and applying until space is back. That margin is the point:
 * LevelDB (leveldbjni 1.8) maps its log and table files into memory, so a write that finds the
 * disk full is a SIGBUS that kills the JVM, not an IOException anyone could handle; the half
 * reserve holds the alarm's own entry, a memtable flush and a compaction's output.
 * {@link #recovered()} (free space at 1.5 × the reserve) is where the member clears its alarm.
 * Thread-safe. {@link #exhausted()}, the Raft member's guard before each write, asks the
 * filesystem anew (statvfs); {@link #low()}, asked before every put, answers from a reading at
 * most {@link #RECENT} old, which the half reserve between the two covers.
 */
public final class DiskSpace {
  /** No reserve: never low (a store in memory, or a reserve of 0). */
  public static final DiskSpace UNLIMITED = new DiskSpace(null, 0);

  /** How old a reading {@link #low()} may answer from (a statvfs was 6 % of a put's CPU). */
  static final long RECENT = 10_000_000L;

  private final FileStore store;
  private final long reserve;
  private volatile Reading last = new Reading(Long.MAX_VALUE, System.nanoTime() - 2 * RECENT);

  /** The usable bytes as read at {@code nanos}. */
  private record Reading(long usable, long nanos) {}

  private DiskSpace(FileStore store, long reserve) {
    this.store = store;
    this.reserve = reserve;
  }

  /** The filesystem of {@code dataDir} (which must exist) with {@code reserve} bytes kept free. */
  public static DiskSpace of(Path dataDir, long reserve) {
    if (reserve <= 0) {
      return UNLIMITED;
    }
    try {
      return new DiskSpace(Files.getFileStore(dataDir), reserve);
    } catch (IOException e) {
      throw new IllegalStateException("cannot find the filesystem of " + dataDir, e);
    }
  }

  /** The bytes this process may still write there; unlimited when unknown. */
  public long usable() {
    if (store == null) {
      return Long.MAX_VALUE;
    }
    try {
      return store.getUsableSpace();
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }

  public long reserve() {
    return reserve;
  }

  /** Less free than the reserve, as read at most {@link #RECENT} ago: writes are refused with NOSPACE. */
  public boolean low() {
    return recentlyUsable() < reserve;
  }

  private long recentlyUsable() {
    Reading r = last;
    long now = System.nanoTime();
    if (now - r.nanos() >= RECENT) {
      r = new Reading(usable(), now);
      last = r;
    }
    return r.usable();
  }

  /** Less free than half the reserve: nothing more may be written to the log or the store. */
  public boolean exhausted() {
    return usable() < reserve / 2;
  }

  /** Free space back at 1.5 × the reserve (above {@link #low()}, so the alarm does not flap). */
  public boolean recovered() {
    return usable() >= reserve + reserve / 2;
  }
}
