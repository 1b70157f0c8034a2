package io.akkaetcd.corrupt;

import io.akkaetcd.mvcc.KvStore.HashResult;
import io.akkaetcd.proto.peerpb.HashKVAnswer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * etcd 3.4's rules for comparing HashKV between members (etcdserver/corrupt.go), as pure
 * functions: which peers disagree at start, and which member the leader's periodic check alarms.
 * Hashes compare only at the same revision and the same compaction: a compaction changes what is
 * hashed, so a member that compacted elsewhere is not corrupt for that.
 */
final class HashRules {
  private HashRules() {}

  /**
   * CheckInitialHashKV: the peers that hashed the revision asked (no error) with the local
   * compact revision but another hash. A peer behind (future revision) or ahead in compaction is
   * only logged by etcd, never counted.
   */
  static List<Long> initialMismatches(HashResult local, List<HashKVAnswer> peers) {
    List<Long> mismatched = new ArrayList<>();
    for (HashKVAnswer p : peers) {
      if (p.getError().isEmpty() && p.getHash() != local.hash()
          && p.getCompactRevision() == local.compactRevision()) {
        mismatched.add(p.getMemberId());
      }
    }
    return mismatched;
  }

  /**
   * checkHashKV, on the leader: {@code before} hashed at its current revision, the peers asked
   * at that revision, then after a linearizable read {@code after} hashed again. The member to
   * raise CORRUPT for, the first found as etcd checks (one alarm per round): the leader itself if
   * its own hash of the same revision and compaction changed; else a peer whose current revision
   * or compact revision is ahead of the leader's, or whose hash differs at the same compaction.
   */
  static OptionalLong periodicMismatch(long self, HashResult before, HashResult after, List<HashKVAnswer> peers) {
    if (after.hash() != before.hash() && after.revision() == before.revision()
        && after.compactRevision() == before.compactRevision()) {
      return OptionalLong.of(self);
    }
    for (HashKVAnswer p : peers) {
      if (!p.getError().isEmpty()) {
        continue;
      }
      boolean revisionAhead = p.getRevision() > after.revision();
      boolean compactionAhead = p.getCompactRevision() > after.compactRevision();
      boolean hashDiffers = p.getCompactRevision() == before.compactRevision() && p.getHash() != before.hash();
      if (revisionAhead || compactionAhead || hashDiffers) {
        return OptionalLong.of(p.getMemberId());
      }
    }
    return OptionalLong.empty();
  }
}
