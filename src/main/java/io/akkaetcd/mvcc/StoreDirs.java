package io.akkaetcd.mvcc;

import io.akkaetcd.os.DirTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Where a store received from another member is written ({@code <dir>.incoming}) and how it
 * replaces the store in {@code <dir>}: the old one is renamed to {@code <dir>.old}, the new one to
 * {@code <dir>}, the parent directory is synced, and the old one is deleted. Renames are atomic,
 * so after a crash at any point {@link #finishInterruptedInstall} finds either the old store or
 * the new one in place, never a mix.
 */
final class StoreDirs {
  private StoreDirs() {}

  static Path incoming(Path dir) {
    return dir.resolveSibling(dir.getFileName() + ".incoming");
  }

  private static Path previous(Path dir) {
    return dir.resolveSibling(dir.getFileName() + ".old");
  }

  /** Puts the complete store in {@code incoming} in the place of the one in {@code dir}. */
  static void replace(Path dir, Path incoming) throws IOException {
    Path old = previous(dir);
    DirTree.delete(old);
    Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
    Files.move(incoming, dir, StandardCopyOption.ATOMIC_MOVE);
    syncDirectory(dir.toAbsolutePath().getParent());
    DirTree.delete(old);
  }

  /**
   * At open: an install cut short by a crash either happened (the new store is in place: the old
   * one is deleted) or did not (the old one is put back); a partly received store is dropped.
   */
  static void finishInterruptedInstall(Path dir) {
    try {
      Path old = previous(dir);
      if (Files.exists(old)) {
        if (Files.exists(dir)) {
          DirTree.delete(old);
        } else {
          Files.move(old, dir, StandardCopyOption.ATOMIC_MOVE);
        }
      }
      DirTree.delete(incoming(dir));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot tidy the MVCC store directories beside " + dir, e);
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
