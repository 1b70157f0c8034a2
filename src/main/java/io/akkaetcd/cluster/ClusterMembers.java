package io.akkaetcd.cluster;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cluster's members as bootstrapped from --initial-cluster, with etcd's ids. Immutable.
 * Membership changes through Raft come with the multi-member issue.
 */
public record ClusterMembers(long clusterId, MemberId self, List<Member> members) {

  /** One member: id, name, peer URLs, client URLs (known for this member only at bootstrap). */
  public record Member(MemberId id, String name, List<URI> peerUrls, List<URI> clientUrls, boolean learner) {}

  /**
   * The members of --initial-cluster (name to peer URLs, in its order), with ids from their peer
   * URLs and --initial-cluster-token; {@code name}'s own entry carries its client URLs.
   */
  public static ClusterMembers bootstrap(String name, Map<String, List<URI>> initialCluster, String token,
      List<URI> advertiseClientUrls) {
    List<Member> members = new ArrayList<>();
    MemberId self = null;
    for (Map.Entry<String, List<URI>> e : initialCluster.entrySet()) {
      MemberId id = MemberId.of(e.getValue(), token);
      boolean isSelf = e.getKey().equals(name);
      members.add(new Member(id, e.getKey(), e.getValue(), isSelf ? advertiseClientUrls : List.of(), false));
      if (isSelf) {
        self = id;
      }
    }
    long cid = MemberId.clusterId(members.stream().map(Member::id).toList());
    return new ClusterMembers(cid, self, List.copyOf(members));
  }

  public List<Long> voterIds() {
    return members.stream().filter(m -> !m.learner()).map(m -> m.id().value()).toList();
  }

  public List<Long> learnerIds() {
    return members.stream().filter(Member::learner).map(m -> m.id().value()).toList();
  }

  /** This member's own entry (absent once it was removed). */
  public java.util.Optional<Member> selfMember() {
    return member(self.value());
  }

  /** The member with this id, if it is one. */
  public java.util.Optional<Member> member(long id) {
    // A loop, not a stream: every client request asks (is this member a learner?).
    for (Member m : members) {
      if (m.id().value() == id) {
        return java.util.Optional.of(m);
      }
    }
    return java.util.Optional.empty();
  }

  /** A member as the peers' wire carries it (cluster join, snapshots). */
  public static io.akkaetcd.proto.peerpb.MemberEntry toEntry(Member m) {
    return io.akkaetcd.proto.peerpb.MemberEntry.newBuilder().setId(m.id().value()).setName(m.name())
        .addAllPeerUrls(m.peerUrls().stream().map(URI::toString).toList()).setLearner(m.learner()).build();
  }

  /** A member from the peers' wire, with the client URLs it is known by here. */
  public static Member fromEntry(io.akkaetcd.proto.peerpb.MemberEntry e, String name, List<URI> clientUrls) {
    return new Member(new MemberId(e.getId()), name, e.getPeerUrlsList().stream().map(URI::create).toList(),
        clientUrls, e.getLearner());
  }
}
