package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The leader's flow control for one follower: probe one at a time, then stream within a window. */
class ProgressTest {
  @Test
  void probeSendsOneAppendUntilAnsweredThenReplicates() {
    Progress p = new Progress(11, 2);
    assertFalse(p.isPaused());
    p.sentEntries(12);
    assertTrue(p.isPaused(), "a probe waits for its answer");
    assertEquals(11, p.next, "a probe does not move next");
    p.heartbeatAnswered();
    assertFalse(p.isPaused(), "a heartbeat answer lets one more probe go");
    assertTrue(p.maybeUpdate(12));
    p.becomeReplicate();
    assertEquals(13, p.next);
    p.sentEntries(14);
    p.sentEntries(15);
    assertEquals(16, p.next, "replicate pipelines optimistically");
    assertTrue(p.isPaused(), "window of 2 full");
    assertTrue(p.maybeUpdate(14));
    assertFalse(p.isPaused());
  }

  @Test
  void rejectionsMoveNextBackUnlessStale() {
    Progress p = new Progress(11, 8);
    p.match = 5;
    p.becomeReplicate();
    p.sentEntries(9);
    p.sentEntries(12);
    assertFalse(p.maybeDecrease(4, 4), "rejects an append before match: stale");
    assertTrue(p.maybeDecrease(9, 7), "the follower's log ends at 7");
    assertEquals(Progress.State.PROBE, p.state);
    assertEquals(8, p.next);
    assertFalse(p.maybeDecrease(6, 3), "not the outstanding probe's index: stale");
    assertTrue(p.maybeDecrease(7, 2));
    assertEquals(6, p.next, "never below match + 1");
  }
}
