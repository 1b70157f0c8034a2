package io.akkaetcd.raft;

import java.util.Collection;

/** Majority math over the voters. Pure. */
public final class Quorum {
  private Quorum() {}

  /** The smallest number of voters that is more than half of {@code voters}. */
  public static int majority(int voters) {
    return voters / 2 + 1;
  }

  /** The highest index that a majority has reached, given each voter's match index. */
  static long committedIndex(Collection<Long> matches) {
    long[] sorted = matches.stream().mapToLong(Long::longValue).sorted().toArray();
    if (sorted.length == 0) {
      return 0;
    }
    // Ascending: the majority-th largest is at position n - majority.
    return sorted[sorted.length - majority(sorted.length)];
  }

  /** Whether the granted votes win, lose, or are still open. */
  enum VoteResult { WON, LOST, PENDING }

  static VoteResult tally(int voters, long granted, long rejected) {
    int need = majority(voters);
    if (granted >= need) {
      return VoteResult.WON;
    }
    if (rejected > voters - need) {
      return VoteResult.LOST;
    }
    return VoteResult.PENDING;
  }
}
