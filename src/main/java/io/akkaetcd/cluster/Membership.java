package io.akkaetcd.cluster;

import io.akkaetcd.proto.raftpb.ConfChange;
import io.akkaetcd.proto.raftpb.ConfChangeType;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The cluster's members as changed by applied configuration changes (etcd's membership store),
 * starting from the bootstrap. Kept in {@code member/members}, written, synced and renamed when a
 * change is applied and before the applier records the entry as applied, so a restarted member
 * starts from the membership it had applied (a change re-applied after a crash changes nothing).
 * Written by the applier; read from any thread.
 */
public final class Membership {
  private static final String FILE = "members";
  /** A cluster has a member at least: an empty file is a damaged one. */
  private static final boolean AT_LEAST_ONE = true;

  private final Path dir;
  private final List<Consumer<ClusterMembers>> listeners = new CopyOnWriteArrayList<>();
  private volatile ClusterMembers current;

  private Membership(Path dir, ClusterMembers current) {
    this.dir = dir;
    this.current = current;
  }

  /** The recorded membership of {@code memberDir}, or {@code bootstrap} (recorded now) if none. */
  public static Membership load(Path memberDir, ClusterMembers bootstrap) {
    Membership m = new Membership(memberDir, bootstrap);
    if (!Files.exists(memberDir.resolve(FILE))) {
      m.write(bootstrap);
      return m;
    }
    List<ClusterMembers.Member> members = new ArrayList<>();
    for (DurableFiles.MemberLine line : DurableFiles.read(memberDir, FILE, AT_LEAST_ONE)) {
      MemberId id = new MemberId(line.id());
      // Client URLs: this member's from its flags; the others' from what they published.
      members.add(new ClusterMembers.Member(id, line.name(), line.urls(),
          id.equals(bootstrap.self()) ? selfClientUrls(bootstrap) : List.of(), line.learner()));
    }
    m.current = new ClusterMembers(bootstrap.clusterId(), bootstrap.self(), List.copyOf(members));
    return m;
  }

  private static List<URI> selfClientUrls(ClusterMembers bootstrap) {
    return bootstrap.selfMember().map(ClusterMembers.Member::clientUrls).orElse(List.of());
  }

  public ClusterMembers current() {
    return current;
  }

  /** Completes with the membership once {@code id} is a voter in it here (a promotion applied). */
  public java.util.concurrent.CompletionStage<ClusterMembers> awaitVoter(long id, java.time.Duration timeout) {
    java.util.concurrent.CompletableFuture<ClusterMembers> done = new java.util.concurrent.CompletableFuture<>();
    Consumer<ClusterMembers> check = m -> {
      if (m.member(id).map(x -> !x.learner()).orElse(false)) {
        done.complete(m);
      }
    };
    listeners.add(check);
    check.accept(current);
    done.whenComplete((m, e) -> listeners.remove(check));
    return done.orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** Called with the new membership after every applied change. */
  public void onChange(Consumer<ClusterMembers> listener) {
    listeners.add(listener);
  }

  /** Applies a committed change (applier thread); idempotent; durable when this returns. */
  public synchronized ClusterMembers apply(ConfChange cc) {
    ClusterMembers before = current;
    MemberId id = new MemberId(cc.getMemberId());
    List<ClusterMembers.Member> members = new ArrayList<>(before.members());
    boolean present = before.member(id.value()).isPresent();
    boolean learner = cc.getType() == ConfChangeType.ADD_LEARNER;
    if ((cc.getType() == ConfChangeType.ADD_MEMBER || learner) && !present) {
      members.add(new ClusterMembers.Member(id, cc.getName(),
          cc.getPeerUrlsList().stream().map(URI::create).toList(), List.of(), learner));
    } else if (cc.getType() == ConfChangeType.PROMOTE_MEMBER && present) {
      members.replaceAll(m -> m.id().equals(id)
          ? new ClusterMembers.Member(m.id(), m.name(), m.peerUrls(), m.clientUrls(), false) : m);
    } else if (cc.getType() == ConfChangeType.REMOVE_MEMBER && present) {
      members.removeIf(m -> m.id().equals(id));
    } else if (cc.getType() == ConfChangeType.UPDATE_MEMBER && present) {
      List<URI> urls = cc.getPeerUrlsList().stream().map(URI::create).toList();
      members.replaceAll(m -> m.id().equals(id)
          ? new ClusterMembers.Member(m.id(), m.name(), urls, m.clientUrls(), m.learner()) : m);
    } else {
      return before;
    }
    ClusterMembers after = new ClusterMembers(before.clusterId(), before.self(), List.copyOf(members));
    write(after);
    current = after;
    listeners.forEach(l -> l.accept(after));
    return after;
  }

  /**
   * Replaces the membership by the one of a snapshot installed from the leader (applier thread);
   * durable when this returns. Client URLs stay as known (they come with the attributes).
   */
  public synchronized ClusterMembers restore(List<ClusterMembers.Member> members) {
    ClusterMembers before = current;
    List<ClusterMembers.Member> restored = new ArrayList<>();
    for (ClusterMembers.Member m : members) {
      List<URI> clientUrls = before.members().stream().filter(b -> b.id().equals(m.id())).findFirst()
          .map(ClusterMembers.Member::clientUrls).orElse(m.clientUrls());
      restored.add(new ClusterMembers.Member(m.id(), m.name(), m.peerUrls(), clientUrls, m.learner()));
    }
    ClusterMembers after = new ClusterMembers(before.clusterId(), before.self(), List.copyOf(restored));
    write(after);
    current = after;
    listeners.forEach(l -> l.accept(after));
    return after;
  }

  private void write(ClusterMembers members) {
    DurableFiles.replace(dir, FILE, members.members().stream()
        .map(m -> new DurableFiles.MemberLine(m.id().value(), m.name(), m.peerUrls(), m.learner())).toList());
  }
}
