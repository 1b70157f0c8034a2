package io.akkaetcd.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** Small state files replaced whole: written beside, synced, then renamed over the old one. */
final class DurableFiles {
  private DurableFiles() {}

  /** After this returns, {@code dir/name} holds {@code lines} on disk, or the old content if it threw. */
  static void replace(Path dir, String name, List<String> lines) {
    Path tmp = dir.resolve(name + ".tmp");
    try {
      Files.write(tmp, lines, StandardCharsets.UTF_8);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + dir.resolve(name), e);
    }
  }
}
