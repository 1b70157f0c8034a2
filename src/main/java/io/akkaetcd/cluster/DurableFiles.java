package io.akkaetcd.cluster;

import io.akkaetcd.errors.StartupException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The member directory's small state files ({@code members}, {@code attributes}): one line per
 * member, {@code <hex id> <name or -> <url>,<url>... [learner]}, replaced whole (written beside,
 * synced, then renamed over the old one), so a crash leaves the old file or the new one, never a
 * mix; anything else found there is damage and stops the start.
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

  /**
   * The lines of {@code dir/name}; none if it does not exist. A file that is not exactly what
   * {@link #replace} writes (a line that does not parse, a last line cut short, or no line where
   * {@code atLeastOne}) stops the start: it was damaged from outside, and guessing would start a
   * member that cannot elect a leader.
   */
  static List<MemberLine> read(Path dir, String name, boolean atLeastOne) {
    Path file = dir.resolve(name);
    List<MemberLine> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    String text = readText(file);
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw StartupException.damaged(file, "its last line is cut short");
    }
    int n = 0;
    for (String line : text.lines().toList()) {
      n++;
      out.add(parse(file, n, line));
    }
    if (atLeastOne && out.isEmpty()) {
      throw StartupException.damaged(file, "it is empty, but must list at least one member");
    }
    return out;
  }

  private static MemberLine parse(Path file, int n, String line) {
    String[] f = line.split(" ", -1);
    try {
      if ((f.length == 3 || (f.length == 4 && f[3].equals(LEARNER))) && !f[1].isEmpty()) {
        long id = Long.parseUnsignedLong(f[0], 16);
        List<URI> urls = new ArrayList<>();
        for (String u : f[2].isEmpty() ? new String[0] : f[2].split(",", -1)) {
          URI url = new URI(u);
          if (url.getScheme() == null || url.getHost() == null || url.getPort() < 0) {
            throw new URISyntaxException(u, "not a URL with a host and a port");
          }
          urls.add(url);
        }
        return new MemberLine(id, f[1].equals("-") ? "" : f[1], List.copyOf(urls), f.length == 4);
      }
    } catch (NumberFormatException | URISyntaxException e) {
      // reported below
    }
    String shown = line.length() > 80 ? line.substring(0, 80) + "..." : line;
    throw StartupException.damaged(file, "line " + n + " (\"" + shown.replaceAll("\\p{Cntrl}", "?")
        + "\") is not <hex member id> <name> <url>,... [learner]");
  }

  private static String readText(Path file) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw StartupException.damaged(file, "it is not UTF-8 text");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** After this returns, {@code dir/name} holds {@code lines} on disk, or the old content if it threw. */
  static void replace(Path dir, String name, List<MemberLine> lines) {
    replaceText(dir, name, lines.stream().map(MemberLine::format).toList());
  }

  /**
   * After this returns, {@code dir/name} holds {@code lines} (each ended by a newline) on disk, or
   * the old content if it threw: written beside, synced, renamed over, and the rename synced.
   */
  static void replaceText(Path dir, String name, List<String> lines) {
    Path tmp = dir.resolve(name + ".tmp");
    try {
      Files.write(tmp, lines, StandardCharsets.UTF_8);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
        d.force(true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + dir.resolve(name), e);
    }
  }
}
