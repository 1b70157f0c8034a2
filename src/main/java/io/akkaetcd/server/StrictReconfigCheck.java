package io.akkaetcd.server;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.raft.Quorum;
import io.akkaetcd.raft.peer.PeerActivity;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * etcd's --strict-reconfig-check (on by default; {@code --strict-reconfig-check=false} turns every
 * question off, as in etcd, and then any change is proposed): a membership change is refused
 * when it could leave the cluster without a working quorum. Two questions, as in etcd 3.4/3.5:
 * <ul>
 *   <li>started: has a member ever run, that is, published its name through Raft (a member added
 *       by MemberAdd has none until it starts)? Too few: "not enough started members".</li>
 *   <li>connected: has this member heard a voter's probes without a break for the last
 *       {@link #HEALTH_INTERVAL} ({@link PeerActivity})? Too few: "unhealthy cluster".</li>
 * </ul>
 * Built for one request from the members as applied and the links as they are now.
 */
final class StrictReconfigCheck {
  /** etcd's HealthInterval: a link counts as connected once it has worked this long. */
  static final Duration HEALTH_INTERVAL = Duration.ofSeconds(5);

  private final boolean enabled;
  private final ClusterMembers members;
  private final Predicate<ClusterMembers.Member> started;
  private final PeerActivity links;
  private final long now;

  /**
   * @param started true for a member that published its name (etcd's {@code IsStarted})
   * @param now the time the links are judged at, on {@link PeerActivity}'s clock
   */
  StrictReconfigCheck(ClusterMembers members, Predicate<ClusterMembers.Member> started, PeerActivity links, long now) {
    this(true, members, started, links, now);
  }

  /** @param enabled false for --strict-reconfig-check=false: every change passes */
  StrictReconfigCheck(boolean enabled, ClusterMembers members, Predicate<ClusterMembers.Member> started,
      PeerActivity links, long now) {
    this.enabled = enabled;
    this.members = members;
    this.started = started;
    this.links = links;
    this.now = now;
  }

  /** MemberAdd. A voter needs a started quorum of the voters it joins; both kinds need every link. */
  Optional<EtcdError> mayAdd(boolean learner) {
    if (!enabled) {
      return Optional.empty();
    }
    if (!learner) {
      // etcd's IsReadyToAddVotingMember: the new member counts among the voters, not as started;
      // a single started voter may always add a second (a cluster grown from, or restored into, one).
      int voters = voters().size() + 1;
      int startedVoters = startedVoters(0);
      if (!(startedVoters == 1 && voters == 2) && startedVoters < Quorum.majority(voters)) {
        return Optional.of(EtcdError.MEMBER_NOT_ENOUGH_STARTED);
      }
    }
    return connectedVoters() == voters().size() ? Optional.empty() : Optional.of(EtcdError.UNHEALTHY);
  }

  /** MemberRemove of voter {@code id} (removing a learner changes no quorum and is not checked). */
  Optional<EtcdError> mayRemoveVoter(long id) {
    if (!enabled) {
      return Optional.empty();
    }
    // etcd's IsReadyToRemoveVotingMember: the started voters that remain are a quorum of those left.
    if (startedVoters(id) < Quorum.majority(voters().size() - 1)) {
      return Optional.of(EtcdError.MEMBER_NOT_ENOUGH_STARTED);
    }
    // A member whose link is down is not part of the working quorum: removing it is safe.
    if (id != members.self().value() && links.activeSince(id, now).isEmpty()) {
      return Optional.empty();
    }
    // Otherwise the connected voters, less the one removed, must be a quorum of those left.
    return connectedVoters() - 1 < Quorum.majority(voters().size() - 1)
        ? Optional.of(EtcdError.UNHEALTHY) : Optional.empty();
  }

  /** MemberPromote: the started voters, with the learner, are a quorum of the voters it joins. */
  Optional<EtcdError> mayPromote() {
    return enabled && startedVoters(0) + 1 < Quorum.majority(voters().size() + 1)
        ? Optional.of(EtcdError.MEMBER_NOT_ENOUGH_STARTED) : Optional.empty();
  }

  private List<ClusterMembers.Member> voters() {
    return members.members().stream().filter(m -> !m.learner()).toList();
  }

  /** Voters other than {@code except} that published their names. */
  private int startedVoters(long except) {
    return (int) voters().stream().filter(m -> m.id().value() != except && started.test(m)).count();
  }

  /** This member, and the voters heard from without a break for the last HEALTH_INTERVAL. */
  private int connectedVoters() {
    long self = members.self().value();
    return (int) voters().stream()
        .filter(m -> m.id().value() == self || links.activeFor(m.id().value(), now, HEALTH_INTERVAL)).count();
  }
}
