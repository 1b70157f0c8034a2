package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.e2e.Linearizability.Kind;
import io.akkaetcd.e2e.Linearizability.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The checker accepts what a register can do and rejects what it cannot. */
class LinearizabilityTest {
  private static Op put(String c, String v, long inv, long ret) {
    return new Op(c, "k", Kind.PUT, v, null, null, null, inv, ret);
  }

  private static Op get(String c, String out, long inv, long ret) {
    return new Op(c, "k", Kind.GET, null, null, out, null, inv, ret);
  }

  private static Op del(String c, long inv, long ret) {
    return new Op(c, "k", Kind.DELETE, null, null, null, null, inv, ret);
  }

  private static Op cas(String c, String expected, String v, Boolean ok, long inv, long ret) {
    return new Op(c, "k", Kind.CAS, v, expected, null, ok, inv, ret);
  }

  @Test
  void concurrentOpsMayTakeEffectInEitherOrder() {
    assertTrue(Linearizability.check(List.of(
        put("a", "1", 0, 10), put("b", "2", 1, 11), get("c", "1", 12, 13), get("c", "1", 14, 15))).ok());
  }

  @Test
  void aStaleReadAfterACompletedWriteIsCaught() {
    // b's write returned before c read; reading the older value is not linearizable.
    assertFalse(Linearizability.check(List.of(
        put("a", "1", 0, 1), put("b", "2", 2, 3), get("c", "1", 4, 5))).ok());
  }

  @Test
  void aReadMustNotFlipBack() {
    // Both reads overlap the write, but once a reader saw 2, a later read cannot see 1 again.
    assertFalse(Linearizability.check(List.of(
        put("a", "1", 0, 1), put("b", "2", 2, 20), get("c", "2", 3, 4), get("d", "1", 5, 6))).ok());
  }

  @Test
  void anUnknownWriteMayOrMayNotHaveHappened() {
    assertTrue(Linearizability.check(List.of(
        put("a", "1", 0, 1), put("b", "2", 2, Linearizability.UNKNOWN), get("c", "1", 3, 4))).ok());
    assertTrue(Linearizability.check(List.of(
        put("a", "1", 0, 1), put("b", "2", 2, Linearizability.UNKNOWN), get("c", "2", 3, 4))).ok());
    // ... but it cannot take effect before it was invoked.
    assertFalse(Linearizability.check(List.of(
        put("a", "1", 0, 1), get("c", "2", 3, 4), put("b", "2", 5, Linearizability.UNKNOWN))).ok());
  }

  @Test
  void manyUnknownWritesNobodyObservedDoNotBlowUpTheSearch() {
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ops.add(put("u" + i, "lost-" + i, 10L * i, Linearizability.UNKNOWN));
      ops.add(put("a", "v" + i, 10L * i + 1, 10L * i + 2));
      ops.add(get("b", "v" + i, 10L * i + 3, 10L * i + 4));
    }
    assertTrue(Linearizability.check(ops).ok());
    // One of them observed: it must then be placed, and here it cannot be (read before its invocation).
    ops.add(get("b", "lost-150", 5, 6));
    assertFalse(Linearizability.check(ops).ok());
  }

  @Test
  void anUnseenLateWriteMayBeWhatMadeACompareAndSwapFail() {
    // ClusterChaosTest's pattern: a's write is stuck on a frozen member and lands late, between
    // b's put and b's compare-and-swap; b's delete then overwrites it, so nobody ever reads it.
    List<Op> withLateWrite = List.of(
        put("a", "lost", 0, Linearizability.UNKNOWN), put("b", "1", 10, 11),
        cas("b", "1", "2", false, 20, 21), del("b", 30, 31), get("b", null, 40, 41));
    assertTrue(Linearizability.check(withLateWrite).ok());
    // Without a write that could have landed in between, the failed compare-and-swap is a violation.
    assertFalse(Linearizability.check(withLateWrite.subList(1, withLateWrite.size())).ok());
    // ... and so it is if the unknown write was invoked only after the compare-and-swap returned.
    assertFalse(Linearizability.check(List.of(
        put("b", "1", 10, 11), cas("b", "1", "2", false, 20, 21),
        put("a", "lost", 25, Linearizability.UNKNOWN), del("b", 30, 31), get("b", null, 40, 41))).ok());
  }

  @Test
  void unknownWritesKeptForFailedCompareAndSwapsDoNotBlowUpTheSearch() {
    // 20 unseen unknown writes, each invoked before many failed compare-and-swaps; only the last
    // round's failure needs one of them.
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ops.add(put("u" + i, "lost-" + i, 100L * i, Linearizability.UNKNOWN));
    }
    for (int i = 0; i < 500; i++) {
      long t = 10_000 + 10L * i;
      ops.add(put("b", "v" + i, t, t + 1));
      ops.add(cas("b", "other", "w" + i, false, t + 2, t + 3));
      ops.add(get("b", "v" + i, t + 4, t + 5));
    }
    ops.add(put("b", "last", 20_000, 20_001));
    ops.add(cas("b", "last", "never", false, 20_002, 20_003));
    ops.add(del("b", 20_004, 20_005));
    assertTrue(Linearizability.check(ops).ok());
    // Read back after the failure, "last" shows that nothing landed in between: a violation.
    ops.set(ops.size() - 1, get("b", "last", 20_004, 20_005));
    assertFalse(Linearizability.check(ops).ok());
  }

  @Test
  void compareAndSwapFollowsTheRegister() {
    assertTrue(Linearizability.check(List.of(
        put("a", "1", 0, 1), cas("b", "1", "2", true, 2, 3), cas("c", "1", "3", false, 4, 5),
        get("d", "2", 6, 7))).ok());
    // Two CAS from the same value cannot both succeed.
    assertFalse(Linearizability.check(List.of(
        put("a", "1", 0, 1), cas("b", "1", "2", true, 2, 10), cas("c", "1", "3", true, 3, 11))).ok());
  }

  @Test
  void keysAreCheckedApart() {
    Op other = new Op("z", "other", Kind.GET, null, null, "x", null, 0, 1);
    Linearizability.Result r = Linearizability.check(List.of(put("a", "1", 0, 1), get("b", "1", 2, 3), other));
    assertEquals("other", r.key());
  }

  @Test
  void aLongSequentialHistoryWithConcurrentNoiseIsCheckedQuickly() {
    // 3 clients, 3000 ops with overlapping windows; generated from a real sequential register.
    Random random = new Random(7);
    List<Op> ops = new ArrayList<>();
    String value = null;
    long t = 0;
    for (int i = 0; i < 3000; i++) {
      long inv = t;
      t += 5;
      String c = "c" + (i % 3);
      if (random.nextBoolean()) {
        value = "v" + i;
        ops.add(put(c, value, inv, t + random.nextInt(8)));
      } else {
        ops.add(get(c, value, inv, t + random.nextInt(8)));
      }
    }
    assertTrue(Linearizability.check(ops).ok());
  }
}
