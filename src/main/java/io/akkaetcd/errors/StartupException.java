package io.akkaetcd.errors;

/**
 * The member cannot start for a reason the operator must fix (a port taken, a URL it cannot
 * serve, a damaged file in the data directory). The message is the whole story, as etcd's
 * fatal start-up errors are: what is wrong, where, and what to do. {@code Main} prints it as one
 * line, without a stack trace, and exits with status 1.
 */
public final class StartupException extends RuntimeException {
  public StartupException(String message) {
    super(message, null, false, false);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause, false, false);
  }

  /**
   * A file of the data directory that cannot be read as written: names it, says what is wrong
   * and what the operator can do. Every such file is written whole or not at all, so damage came
   * from outside (a disk, a copy, a hand).
   */
  public static StartupException damaged(java.nio.file.Path file, String what) {
    return new StartupException(file + " is damaged: " + what + ". " + RECOVERY);
  }

  /** What an operator can do about a damaged data directory, etcd's answer to a corrupt member. */
  public static final String RECOVERY = "Restore the data directory from a backup, or, in a cluster, remove this"
      + " member (etcdctl member remove), delete its data directory and add it again (etcdctl member add)";

  /** A LevelDB of the data directory ({@code what}: the store, the journal) that would not open, in LevelDB's words. */
  public static StartupException unopenable(java.nio.file.Path dir, String what, java.io.IOException e) {
    String why = String.valueOf(e.getMessage());
    if (why.contains("LOCK")) {
      return new StartupException(what + " " + dir + " cannot be opened: " + why
          + ". Is another member running on this data directory?");
    }
    return damaged(dir, what + " (LevelDB) cannot be opened: " + why);
  }
}
