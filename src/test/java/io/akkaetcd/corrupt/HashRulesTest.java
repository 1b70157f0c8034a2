package io.akkaetcd.corrupt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.akkaetcd.mvcc.KvStore.HashResult;
import io.akkaetcd.proto.peerpb.HashKVAnswer;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** etcd 3.4's corrupt.go rules, as a table: which peer mismatches, which member is alarmed. */
class HashRulesTest {
  private static final long SELF = 1;

  private static HashKVAnswer peer(long id, long rev, long compact, int hash) {
    return HashKVAnswer.newBuilder().setMemberId(id).setRevision(rev).setCompactRevision(compact).setHash(hash).build();
  }

  private static HashKVAnswer failed(long id, String why) {
    return HashKVAnswer.newBuilder().setMemberId(id).setError(why).build();
  }

  @Test
  void initialCheckCountsOnlyAnotherHashAtTheSameCompaction() {
    HashResult local = new HashResult(7, 3, 10);
    assertEquals(List.of(), HashRules.initialMismatches(local, List.of(peer(2, 12, 3, 7), peer(3, 10, 3, 7))));
    assertEquals(List.of(2L), HashRules.initialMismatches(local, List.of(peer(2, 12, 3, 8), peer(3, 10, 3, 7))));
    // Compacted elsewhere: another hash is expected, not a mismatch (etcd only logs it).
    assertEquals(List.of(), HashRules.initialMismatches(local, List.of(peer(2, 12, 5, 8))));
    // Behind (future revision), compacted past the revision, unreachable: skipped.
    assertEquals(List.of(), HashRules.initialMismatches(local, List.of(
        failed(2, "etcdserver: mvcc: required revision is a future revision"),
        failed(3, "etcdserver: mvcc: required revision has been compacted"), failed(4, "timeout"))));
  }

  @Test
  void periodicCheckAlarmsTheFirstMemberFoundAsEtcdDoes() {
    HashResult before = new HashResult(7, 3, 10);
    HashResult after = new HashResult(9, 3, 12);
    assertEquals(OptionalLong.empty(), HashRules.periodicMismatch(SELF, before, after,
        List.of(peer(2, 12, 3, 7), peer(3, 11, 3, 7), failed(4, "timeout"))));
    // The leader's own hash of the same revision and compaction changed: itself.
    assertEquals(OptionalLong.of(SELF), HashRules.periodicMismatch(SELF, before, new HashResult(8, 3, 10),
        List.of(peer(2, 10, 3, 8))));
    // A follower ahead of the leader's revision, or of its compaction.
    assertEquals(OptionalLong.of(2), HashRules.periodicMismatch(SELF, before, after, List.of(peer(2, 13, 3, 7))));
    assertEquals(OptionalLong.of(3), HashRules.periodicMismatch(SELF, before, after,
        List.of(peer(2, 12, 3, 7), peer(3, 12, 4, 5))));
    // Another hash at the leader's first compaction; the first of two is alarmed (one per round).
    assertEquals(OptionalLong.of(2), HashRules.periodicMismatch(SELF, before, after,
        List.of(peer(2, 12, 3, 6), peer(3, 12, 3, 5))));
    // Another hash after a compaction the leader has since applied too: not comparable.
    assertEquals(OptionalLong.empty(), HashRules.periodicMismatch(SELF, before, new HashResult(9, 4, 12),
        List.of(peer(2, 12, 4, 5))));
  }
}
