package io.akkaetcd.cluster;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The name and client URLs each member published through Raft (etcd's member attributes), kept in
 * {@code member/attributes} so that a restarted member lists its peers' URLs without waiting for
 * them to publish again. The file is written, synced and renamed when a publication is applied,
 * before the applier records the entry as applied: an applied publication is never lost.
 * Thread-safe: the applier writes, the Cluster service reads.
 */
public final class MemberAttributes {
  private static final String FILE = "attributes";
  /** Written once a member published; a snapshot from a leader may hold no publication yet. */
  private static final boolean AT_LEAST_ONE = false;

  /** What one member published. */
  public record Published(String name, List<URI> clientUrls) {}

  /** A wait for one member's publication (see {@link #whenRecorded}). */
  private record Awaited(long memberId, Published published, CompletableFuture<Void> done) {}

  private final Path dir;
  private volatile Map<Long, Published> published;
  private final List<Awaited> awaited = new ArrayList<>(); // guarded by this

  private MemberAttributes(Path dir, Map<Long, Published> published) {
    this.dir = dir;
    this.published = published;
  }

  /** What {@code memberDir} recorded so far (nothing for a new member). */
  public static MemberAttributes load(Path memberDir) {
    Map<Long, Published> published = new TreeMap<>();
    for (DurableFiles.MemberLine line : DurableFiles.read(memberDir, FILE, AT_LEAST_ONE)) {
      published.put(line.id(), new Published(line.name(), line.urls()));
    }
    return new MemberAttributes(memberDir, published);
  }

  /** The client URLs {@code memberId} published, if it did. */
  public Optional<List<URI>> clientUrls(long memberId) {
    return Optional.ofNullable(published.get(memberId)).map(Published::clientUrls);
  }

  /** The name {@code memberId} published, if it did. */
  public Optional<String> name(long memberId) {
    return Optional.ofNullable(published.get(memberId)).map(Published::name);
  }

  /** The name a member is listed with: as it published it, else as bootstrapped or added. */
  public String nameOf(ClusterMembers.Member m) {
    return name(m.id().value()).filter(n -> !n.isEmpty()).orElse(m.name());
  }

  /** The client URLs a member is listed with: as it published them, else as bootstrapped. */
  public List<URI> clientUrlsOf(ClusterMembers.Member m) {
    return clientUrls(m.id().value()).orElse(m.clientUrls());
  }

  /** What every member published, by member id. */
  public Map<Long, Published> all() {
    return published;
  }

  /**
   * Completes once {@code memberId}'s recorded publication is exactly {@code name} and
   * {@code urls}, whether an applied entry or an installed snapshot recorded it; at once if it is.
   */
  public synchronized CompletableFuture<Void> whenRecorded(long memberId, String name, List<URI> urls) {
    Awaited a = new Awaited(memberId, new Published(name, List.copyOf(urls)), new CompletableFuture<>());
    awaited.add(a);
    completeRecorded();
    return a.done();
  }

  /** Replaces everything by what a snapshot installed from the leader holds (applier thread); durable when this returns. */
  public synchronized void restore(Map<Long, Published> all) {
    Map<Long, Published> next = new TreeMap<>(all);
    write(next);
    published = next;
    completeRecorded();
  }

  private void completeRecorded() {
    awaited.removeIf(a -> {
      boolean recorded = a.published().equals(published.get(a.memberId()));
      if (recorded) {
        a.done().complete(null);
      }
      return recorded;
    });
  }

  private void write(Map<Long, Published> all) {
    List<DurableFiles.MemberLine> lines = new ArrayList<>();
    all.forEach((id, q) -> lines.add(new DurableFiles.MemberLine(id, q.name(), q.clientUrls())));
    DurableFiles.replace(dir, FILE, lines);
  }

  /** Records a publication (applier thread); durable when this returns. */
  public synchronized void publish(long memberId, String name, List<URI> urls) {
    Published p = new Published(name, List.copyOf(urls));
    if (p.equals(published.get(memberId))) {
      return;
    }
    Map<Long, Published> next = new TreeMap<>(published);
    next.put(memberId, p);
    write(next);
    published = next;
    completeRecorded();
  }
}
