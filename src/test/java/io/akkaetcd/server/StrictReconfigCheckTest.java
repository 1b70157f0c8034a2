package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.akkaetcd.errors.EtcdError;
import io.akkaetcd.cluster.ClusterMembers;
import io.akkaetcd.cluster.MemberId;
import io.akkaetcd.raft.peer.PeerActivity;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * etcd's strict reconfiguration check, case by case as etcd 3.4 answers it (the cases marked
 * "etcd:" were played with etcdctl against clusters of Debian's etcd 3.4).
 */
class StrictReconfigCheckTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long NOW = 100 * SECOND;
  private static final Optional<EtcdError> OK = Optional.empty();
  private static final Optional<EtcdError> NOT_STARTED = Optional.of(EtcdError.MEMBER_NOT_ENOUGH_STARTED);
  private static final Optional<EtcdError> UNHEALTHY = Optional.of(EtcdError.UNHEALTHY);

  /** Voters 1..voters (1 is this member), then learners. */
  private static ClusterMembers members(int voters, int learners) {
    List<ClusterMembers.Member> list = new ArrayList<>();
    for (int i = 1; i <= voters + learners; i++) {
      list.add(new ClusterMembers.Member(new MemberId(i), "m" + i, List.of(URI.create("http://127.0.0.1:" + (7000 + i))),
          List.of(), i > voters));
    }
    return new ClusterMembers(99, new MemberId(1), list);
  }

  /** Links from every peer in {@code connected}, working for the last 10 s; the others silent. */
  private static PeerActivity links(Set<Long> connected) {
    PeerActivity a = new PeerActivity(Duration.ofSeconds(1));
    for (long t = NOW - 10 * SECOND; t <= NOW; t += SECOND / 10) {
      for (long id : connected) {
        a.heard(id, t);
      }
    }
    return a;
  }

  private static StrictReconfigCheck check(ClusterMembers m, Set<Long> unstarted, Set<Long> connected) {
    return new StrictReconfigCheck(m, x -> !unstarted.contains(x.id().value()), links(connected), NOW);
  }

  @Test
  void allRunningAndConnected() {
    StrictReconfigCheck c = check(members(3, 0), Set.of(), Set.of(2L, 3L));
    assertEquals(OK, c.mayAdd(false));
    assertEquals(OK, c.mayAdd(true));
    assertEquals(OK, c.mayRemoveVoter(1));
    assertEquals(OK, c.mayRemoveVoter(2));
    assertEquals(OK, c.mayPromote());
  }

  @Test
  void oneOfThreeDown() {
    // etcd: member add (voter or learner) and the removal of a running member: unhealthy cluster.
    StrictReconfigCheck c = check(members(3, 0), Set.of(), Set.of(2L));
    assertEquals(UNHEALTHY, c.mayAdd(false));
    assertEquals(UNHEALTHY, c.mayAdd(true));
    assertEquals(UNHEALTHY, c.mayRemoveVoter(1), "removing itself leaves one running of two");
    assertEquals(UNHEALTHY, c.mayRemoveVoter(2));
    assertEquals(OK, c.mayRemoveVoter(3), "the member that is down is not in the working quorum");
    assertEquals(OK, c.mayPromote(), "promotion counts started members only");
  }

  @Test
  void aPeerHeardForLessThanTheHealthIntervalIsNotConnectedYet() {
    PeerActivity a = links(Set.of(2L));
    for (long t = NOW - 3 * SECOND; t <= NOW; t += SECOND / 10) {
      a.heard(3, t);
    }
    StrictReconfigCheck c = new StrictReconfigCheck(members(3, 0), x -> true, a, NOW);
    assertEquals(UNHEALTHY, c.mayAdd(false));
  }

  @Test
  void anAddedMemberThatNeverStarted() {
    // etcd: a lone member adds a second; until it starts, a third voter is refused for want of
    // started members, a learner for want of a connected voter.
    StrictReconfigCheck two = check(members(2, 0), Set.of(2L), Set.of());
    assertEquals(NOT_STARTED, two.mayAdd(false));
    assertEquals(UNHEALTHY, two.mayAdd(true));
    // etcd's exception: one started voter alone may always add a second.
    assertEquals(OK, check(members(1, 0), Set.of(), Set.of()).mayAdd(false));
    // Five voters of which two never started: three started of six is not a quorum.
    StrictReconfigCheck five = check(members(5, 0), Set.of(4L, 5L), Set.of(2L, 3L));
    assertEquals(NOT_STARTED, five.mayAdd(false));
    assertEquals(NOT_STARTED, five.mayRemoveVoter(2), "two started of four");
    assertEquals(OK, five.mayRemoveVoter(4), "three started of four, and 4 is not connected");
    assertEquals(OK, five.mayPromote(), "four started of six");
    StrictReconfigCheck three = check(members(3, 1), Set.of(2L, 3L), Set.of());
    assertEquals(NOT_STARTED, three.mayPromote(), "two started of four");
  }

  @Test
  void learnersCountNeitherAsStartedNorAsLinks() {
    // A learner that is down does not make the cluster unhealthy.
    StrictReconfigCheck c = check(members(3, 1), Set.of(), Set.of(2L, 3L));
    assertEquals(OK, c.mayAdd(false));
    assertEquals(OK, c.mayRemoveVoter(2));
  }

  /** --strict-reconfig-check=false: etcd skips both questions, so every change is proposed. */
  @Test
  void switchedOffByTheFlagEveryChangePasses() {
    ClusterMembers m = members(3, 1);
    StrictReconfigCheck on = new StrictReconfigCheck(true, m, x -> x.id().value() == 1, links(Set.of()), NOW);
    assertEquals(NOT_STARTED, on.mayAdd(false));
    assertEquals(UNHEALTHY, on.mayAdd(true));
    assertEquals(NOT_STARTED, on.mayRemoveVoter(1));
    assertEquals(NOT_STARTED, on.mayPromote());
    StrictReconfigCheck off = new StrictReconfigCheck(false, m, x -> x.id().value() == 1, links(Set.of()), NOW);
    assertEquals(OK, off.mayAdd(false));
    assertEquals(OK, off.mayAdd(true));
    assertEquals(OK, off.mayRemoveVoter(1));
    assertEquals(OK, off.mayPromote());
  }
}
