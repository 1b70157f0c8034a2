package io.akkaetcd.raft.peer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Test-only fault injection: the peers this member must neither send to nor hear from, read from
 * a file of member names (one per line) that a test rewrites to cut and heal links. Messages to
 * and from a blocked peer are dropped at this member's edge ({@link PeerGate}), which is what a
 * network partition does to Raft. A line {@code quarantine <name>} instead asks this member to
 * quarantine that member's Akka incarnation (see {@link #quarantineRequests}). Installed only by
 * the test launcher (io.akkaetcd.server.FaultyMain).
 */
public final class PeerFilter implements PeerGate {

  private final Path file;
  /** Member ids by name, as of now (members come and go). */
  private final java.util.function.Supplier<Map<String, Long>> idsByName;
  private volatile Set<Long> blocked = Set.of();
  private volatile Set<Long> quarantine = Set.of();
  private static final String QUARANTINE = "quarantine ";

  private PeerFilter(Path file, java.util.function.Supplier<Map<String, Long>> idsByName) {
    this.file = file;
    this.idsByName = idsByName;
  }

  /** A filter that follows {@code file}; call {@link #reload} to pick up changes. */
  public static PeerFilter following(Path file, java.util.function.Supplier<Map<String, Long>> idsByName) {
    PeerFilter f = new PeerFilter(file, idsByName);
    f.reload();
    return f;
  }

  @Override
  public boolean blocked(long memberId) {
    return blocked.contains(memberId);
  }

  /** Re-reads the file; a missing or unreadable file blocks nobody. */
  public void reload() {
    Set<Long> next = new HashSet<>();
    Set<Long> toQuarantine = new HashSet<>();
    Map<String, Long> ids = idsByName.get();
    try {
      if (Files.exists(file)) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          boolean q = line.startsWith(QUARANTINE);
          Long id = ids.get((q ? line.substring(QUARANTINE.length()) : line).trim());
          if (id != null) {
            (q ? toQuarantine : next).add(id);
          }
        }
      }
    } catch (IOException e) {
      next.clear();
      toQuarantine.clear();
    }
    blocked = Set.copyOf(next);
    quarantine = Set.copyOf(toQuarantine);
  }

  /** The members whose current Akka incarnation this member is asked to quarantine. */
  public Set<Long> quarantineRequests() {
    return quarantine;
  }
}
