package io.akkaetcd.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.proto.raftpb.ConfChange;
import io.akkaetcd.proto.raftpb.ConfChangeType;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The membership file: changes applied through Raft survive a restart, learners as learners. */
class MembershipTest {
  @TempDir Path tmp;

  @Test
  void aLearnerIsStillALearnerAfterARestart() throws Exception {
    Path dir = Files.createTempDirectory(tmp, "membership");
    MemberId self = new MemberId(1);
    ClusterMembers bootstrap = new ClusterMembers(9, self, List.of(new ClusterMembers.Member(self, "m1",
        List.of(URI.create("http://127.0.0.1:2380")), List.of(), false)));
    Membership m = Membership.load(dir, bootstrap);
    m.apply(ConfChange.newBuilder().setType(ConfChangeType.ADD_LEARNER).setMemberId(2).setName("m2")
        .addPeerUrls("http://127.0.0.1:2381").build());
    m.apply(ConfChange.newBuilder().setType(ConfChangeType.ADD_MEMBER).setMemberId(3).setName("m3")
        .addPeerUrls("http://127.0.0.1:2382").build());

    ClusterMembers reloaded = Membership.load(dir, bootstrap).current();
    assertEquals(List.of(1L, 3L), reloaded.voterIds());
    assertEquals(List.of(2L), reloaded.learnerIds());
    assertEquals(List.of(URI.create("http://127.0.0.1:2381")), reloaded.member(2).orElseThrow().peerUrls());

    Membership again = Membership.load(dir, bootstrap);
    again.apply(ConfChange.newBuilder().setType(ConfChangeType.PROMOTE_MEMBER).setMemberId(2).build());
    assertTrue(Membership.load(dir, bootstrap).current().learnerIds().isEmpty(), "promoted for good");
  }
}
