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
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The client URLs each member published through Raft (etcd's member attributes), kept in
 * {@code member/attributes} so that a restarted member lists its peers' URLs without waiting for
 * them to publish again. The file is written, synced and renamed when a publication is applied,
 * before the applier records the entry as applied: an applied publication is never lost.
 * Thread-safe: the applier writes, the Cluster service reads.
 */
public final class MemberAttributes {
  private static final String FILE = "attributes";

  private final Path dir;
  private volatile Map<Long, List<URI>> clientUrls;

  private MemberAttributes(Path dir, Map<Long, List<URI>> clientUrls) {
    this.dir = dir;
    this.clientUrls = clientUrls;
  }

  /** What {@code memberDir} recorded so far (nothing for a new member). */
  public static MemberAttributes load(Path memberDir) {
    Map<Long, List<URI>> urls = new TreeMap<>();
    Path file = memberDir.resolve(FILE);
    try {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          String[] parts = line.trim().split(" ", 2);
          if (parts.length == 2 && !parts[0].isEmpty()) {
            urls.put(Long.parseUnsignedLong(parts[0], 16), parseUrls(parts[1]));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return new MemberAttributes(memberDir, urls);
  }

  private static List<URI> parseUrls(String s) {
    return Arrays.stream(s.trim().split(",")).filter(u -> !u.isEmpty()).map(URI::create).toList();
  }

  /** The client URLs {@code memberId} published, if it did. */
  public Optional<List<URI>> clientUrls(long memberId) {
    return Optional.ofNullable(clientUrls.get(memberId));
  }

  /** Records a publication (applier thread); durable when this returns. */
  public synchronized void publish(long memberId, List<URI> urls) {
    if (urls.equals(clientUrls.get(memberId))) {
      return;
    }
    Map<Long, List<URI>> next = new TreeMap<>(clientUrls);
    next.put(memberId, List.copyOf(urls));
    List<String> lines = new ArrayList<>();
    next.forEach((id, u) -> lines.add(Long.toHexString(id) + " "
        + String.join(",", u.stream().map(URI::toString).toList())));
    Path tmp = dir.resolve(FILE + ".tmp");
    try {
      Files.write(tmp, lines, StandardCharsets.UTF_8);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record member attributes in " + dir, e);
    }
    clientUrls = next;
  }
}
