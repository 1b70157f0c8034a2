package io.akkaetcd.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The member directory's small state files ({@code members}, {@code attributes}): one line per
 * member, {@code <hex id> <name or -> <url>,<url>... [learner]}, replaced whole (written beside,
 * synced, then renamed over the old one).
 */
final class DurableFiles {
  private static final String LEARNER = "learner";

  /** One line: a member id, a name (empty allowed), URLs, and whether the member is a learner. */
  record MemberLine(long id, String name, List<URI> urls, boolean learner) {
    MemberLine(long id, String name, List<URI> urls) {
      this(id, name, urls, false);
    }

    String format() {
      return Long.toHexString(id) + " " + (name.isEmpty() ? "-" : name) + " "
          + String.join(",", urls.stream().map(URI::toString).toList()) + (learner ? " " + LEARNER : "");
    }
  }

  private DurableFiles() {}

  /** The lines of {@code dir/name}; none if it does not exist. Malformed lines are skipped. */
  static List<MemberLine> read(Path dir, String name) {
    Path file = dir.resolve(name);
    List<MemberLine> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String[] f = line.trim().split(" ", 4);
        if ((f.length == 3 || f.length == 4) && !f[0].isEmpty()) {
          out.add(new MemberLine(Long.parseUnsignedLong(f[0], 16), f[1].equals("-") ? "" : f[1],
              Arrays.stream(f[2].trim().split(",")).filter(u -> !u.isEmpty()).map(URI::create).toList(),
              f.length == 4 && f[3].trim().equals(LEARNER)));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** After this returns, {@code dir/name} holds {@code lines} on disk, or the old content if it threw. */
  static void replace(Path dir, String name, List<MemberLine> lines) {
    Path tmp = dir.resolve(name + ".tmp");
    try {
      Files.write(tmp, lines.stream().map(MemberLine::format).toList(), StandardCharsets.UTF_8);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + dir.resolve(name), e);
    }
  }
}
