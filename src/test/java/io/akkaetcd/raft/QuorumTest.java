package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class QuorumTest {
  @Test
  void majority() {
    assertEquals(1, Quorum.majority(1));
    assertEquals(2, Quorum.majority(2));
    assertEquals(2, Quorum.majority(3));
    assertEquals(3, Quorum.majority(4));
    assertEquals(3, Quorum.majority(5));
  }

  @Test
  void committedIndexIsWhatAMajorityHas() {
    assertEquals(7, Quorum.committedIndex(List.of(7L)));
    assertEquals(5, Quorum.committedIndex(List.of(9L, 5L, 1L)));
    assertEquals(5, Quorum.committedIndex(List.of(5L, 9L, 5L)));
    assertEquals(3, Quorum.committedIndex(List.of(9L, 3L, 1L, 8L, 2L)));
    assertEquals(2, Quorum.committedIndex(List.of(2L, 9L, 1L, 8L)));
  }

  @Test
  void tally() {
    assertEquals(Quorum.VoteResult.WON, Quorum.tally(3, 2, 0));
    assertEquals(Quorum.VoteResult.PENDING, Quorum.tally(3, 1, 1));
    assertEquals(Quorum.VoteResult.LOST, Quorum.tally(3, 1, 2));
    assertEquals(Quorum.VoteResult.LOST, Quorum.tally(4, 2, 2));
  }
}
