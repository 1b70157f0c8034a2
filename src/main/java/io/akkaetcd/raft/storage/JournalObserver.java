package io.akkaetcd.raft.storage;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a member learns of its journal's writes: each LevelDB write batch with its sync (etcd's
 * WAL fsync) and how many Raft log events it carried. {@link TimedLeveldbJournal} calls it, on
 * the journal's own thread; the member registers it by its journal directory before the journal
 * starts, as the journal is created by Akka Persistence and knows nothing else of its member.
 */
public interface JournalObserver {
  /** One write batch was written and synced in {@code nanos}. */
  void written(long nanos);

  /** One journal write carried {@code events} Raft log events. */
  void batch(int events);

  JournalObserver NONE = new JournalObserver() {
    @Override
    public void written(long nanos) {}

    @Override
    public void batch(int events) {}
  };

  /** Observers by journal directory: a member registers its own before its journal opens. */
  final class Registry {
    private static final ConcurrentHashMap<Path, JournalObserver> BY_DIR = new ConcurrentHashMap<>();

    private Registry() {}

    public static void register(Path journalDir, JournalObserver observer) {
      BY_DIR.put(key(journalDir), observer);
    }

    public static void unregister(Path journalDir, JournalObserver observer) {
      BY_DIR.remove(key(journalDir), observer);
    }

    static JournalObserver of(Path journalDir) {
      return BY_DIR.getOrDefault(key(journalDir), NONE);
    }

    private static Path key(Path dir) {
      return dir.toAbsolutePath().normalize();
    }
  }
}
