package io.akkaetcd.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The name and client URLs each member published through Raft (etcd's member attributes), kept in
 * {@code member/attributes} so that a restarted member lists its peers' URLs without waiting for
 * them to publish again. The file is written, synced and renamed when a publication is applied,
 * before the applier records the entry as applied: an applied publication is never lost.
 * Thread-safe: the applier writes, the Cluster service reads.
 */
public final class MemberAttributes {
  private static final String FILE = "attributes";

  private final Path dir;
  private volatile Map<Long, List<URI>> clientUrls;
  private volatile Map<Long, String> names;

  private MemberAttributes(Path dir, Map<Long, List<URI>> clientUrls, Map<Long, String> names) {
    this.dir = dir;
    this.clientUrls = clientUrls;
    this.names = names;
  }

  /** What {@code memberDir} recorded so far (nothing for a new member). */
  public static MemberAttributes load(Path memberDir) {
    Map<Long, List<URI>> urls = new TreeMap<>();
    Map<Long, String> names = new TreeMap<>();
    Path file = memberDir.resolve(FILE);
    try {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          String[] parts = line.trim().split(" ", 3);
          if (parts.length == 3 && !parts[0].isEmpty()) {
            long id = Long.parseUnsignedLong(parts[0], 16);
            names.put(id, parts[1].equals("-") ? "" : parts[1]);
            urls.put(id, parseUrls(parts[2]));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return new MemberAttributes(memberDir, urls, names);
  }

  private static List<URI> parseUrls(String s) {
    return Arrays.stream(s.trim().split(",")).filter(u -> !u.isEmpty()).map(URI::create).toList();
  }

  /** The client URLs {@code memberId} published, if it did. */
  public Optional<List<URI>> clientUrls(long memberId) {
    return Optional.ofNullable(clientUrls.get(memberId));
  }

  /** The name {@code memberId} published, if it did. */
  public Optional<String> name(long memberId) {
    return Optional.ofNullable(names.get(memberId));
  }

  /** Records a publication (applier thread); durable when this returns. */
  public synchronized void publish(long memberId, String name, List<URI> urls) {
    if (urls.equals(clientUrls.get(memberId)) && name.equals(names.get(memberId))) {
      return;
    }
    Map<Long, List<URI>> next = new TreeMap<>(clientUrls);
    next.put(memberId, List.copyOf(urls));
    Map<Long, String> nextNames = new TreeMap<>(names);
    nextNames.put(memberId, name);
    List<String> lines = new ArrayList<>();
    next.forEach((id, u) -> lines.add(Long.toHexString(id) + " "
        + (nextNames.getOrDefault(id, "").isEmpty() ? "-" : nextNames.get(id)) + " "
        + String.join(",", u.stream().map(URI::toString).toList())));
    DurableFiles.replace(dir, FILE, lines);
    clientUrls = next;
    names = nextNames;
  }
}
