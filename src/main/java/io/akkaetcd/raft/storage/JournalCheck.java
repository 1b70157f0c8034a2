package io.akkaetcd.raft.storage;

import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;

/**
 * Opens the raft journal (Akka Persistence's LevelDB under {@code member/wal}) once before the
 * actor system starts, so a journal LevelDB cannot open stops the start with one line that names
 * it, rather than a journal plugin Akka restarts forever while the member waits for its log.
 */
public final class JournalCheck {
  private JournalCheck() {}

  /** Throws if {@code walDir} holds a LevelDB that cannot be opened; a missing one is a new member's. */
  public static void verifyOpens(Path walDir) {
    if (!Files.isDirectory(walDir)) {
      return;
    }
    try (DB db = JniDBFactory.factory.open(walDir.toFile(), new Options().createIfMissing(false))) {
      // opened as the journal plugin opens it (no paranoid checks: a torn last record is dropped)
    } catch (IOException e) {
      throw StartupException.unopenable(walDir, "the raft journal", e);
    }
  }
}
