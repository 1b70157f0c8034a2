package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.e2e.WatchGuarantees.Delivery;
import io.akkaetcd.e2e.WatchGuarantees.Event;
import io.akkaetcd.e2e.WatchGuarantees.Events;
import io.akkaetcd.e2e.WatchGuarantees.History;
import io.akkaetcd.e2e.WatchGuarantees.Progress;
import io.akkaetcd.e2e.WatchGuarantees.Report;
import io.akkaetcd.e2e.WatchGuarantees.Resumed;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Each watch guarantee check accepts what etcd may deliver and fails on a history that breaks its
 * guarantee. The histories are of one watch on "w/" over this committed history:
 *
 * <pre>
 * 2  PUT w/a
 * 3  PUT w/b, PUT w/c            (one txn)
 * 4  a write outside the watch's keys
 * 5  PUT w/d, DELETE w/a         (one txn)
 * 6  PUT w/e
 * </pre>
 */
class WatchGuaranteesTest {
  private static final Event A = Event.put("w/a", 2, "1");
  private static final Event B = Event.put("w/b", 3, "1");
  private static final Event C = Event.put("w/c", 3, "1");
  private static final Event D = Event.put("w/d", 5, "1");
  private static final Event DEL_A = Event.delete("w/a", 5);
  private static final Event E = Event.put("w/e", 6, "1");

  private static final Map<Long, List<Event>> ACKNOWLEDGED = Map.of(
      2L, List.of(A), 3L, List.of(B, C), 5L, List.of(D, DEL_A), 6L, List.of(E));

  private static Events events(Event... es) {
    return new Events(List.of(es));
  }

  private static History watch(Delivery... deliveries) {
    return new History("w", k -> k.startsWith("w/"), 1, List.of(deliveries), 6);
  }

  /** The guarantees that failed on {@code h}. */
  private static Set<String> broken(History h) {
    return broken(ACKNOWLEDGED, List.of(h));
  }

  private static Set<String> broken(Map<Long, List<Event>> acknowledged, List<History> hs) {
    Set<String> out = new TreeSet<>();
    WatchGuarantees.check(acknowledged, hs).violations().forEach((guarantee, found) -> {
      if (!found.isEmpty()) {
        out.add(guarantee);
      }
    });
    return out;
  }

  @Test
  void aHistoryAsEtcdDeliversItKeepsAllSix() {
    Report report = WatchGuarantees.check(ACKNOWLEDGED, List.of(watch(
        events(A), events(B, C), new Progress(4), events(D, DEL_A), new Resumed("member killed"),
        events(E), new Progress(6))));
    assertTrue(report.ok(), report.toString());
    // several revisions in one response, a progress before anything and a resume right after a
    // progress (from progress revision + 1) are all fine too
    assertEquals(Set.of(), broken(watch(new Progress(1), events(A, B, C), new Progress(4), new Resumed("moved"),
        new Resumed("again"), events(D, DEL_A, E), new Progress(6))));
  }

  @Test
  void orderedFailsWhenARevisionGoesBack() {
    assertEquals(Set.of("ordered"), broken(watch(events(B, C), events(A), events(D, DEL_A), events(E))));
  }

  @Test
  void orderedFailsOnAnEventBeforeTheStart() {
    History fromThree = new History("w", k -> k.startsWith("w/"), 3, List.of(events(A), events(B, C),
        events(D, DEL_A), events(E)), 6);
    assertTrue(broken(fromThree).contains("ordered"));
  }

  @Test
  void uniqueFailsWhenAnEventComesTwice() {
    assertEquals(Set.of("unique"), broken(watch(events(A), events(A), events(B, C), events(D, DEL_A), events(E))));
  }

  @Test
  void reliableFailsOnAGap() {
    assertEquals(Set.of("reliable"), broken(watch(events(A), events(D, DEL_A), events(E))));
    // the last event never came
    assertEquals(Set.of("reliable"), broken(watch(events(A), events(B, C), events(D, DEL_A))));
  }

  @Test
  void atomicFailsWhenATxnIsSplitOverResponses() {
    assertEquals(Set.of("atomic"), broken(watch(events(A), events(B), events(C), events(D, DEL_A), events(E))));
  }

  @Test
  void atomicFailsWhenPartOfARevisionNeverComes() {
    Set<String> failed = broken(watch(events(A), events(B, C), events(D), events(E)));
    assertTrue(failed.contains("atomic"), failed.toString());
  }

  @Test
  void atomicFailsWhenARevisionsEventsAreNotInOperationOrder() {
    assertEquals(Set.of("atomic"), broken(watch(events(A), events(C, B), events(D, DEL_A), events(E))));
  }

  @Test
  void atomicComparesWatchesWithEachOtherWhereNoWriteWasAcknowledged() {
    // only revision 2 was acknowledged (the answers to the txns were lost); one watch got the
    // txns whole, the other got part of revision 3 and the rest of it never
    History whole = new History("whole", k -> k.startsWith("w/"), 1,
        List.of(events(A), events(B, C), events(D, DEL_A), events(E)), 6);
    History part = new History("part", k -> k.startsWith("w/"), 1,
        List.of(events(A), events(B), events(D, DEL_A), events(E)), 6);
    Report report = WatchGuarantees.check(Map.of(2L, List.of(A)), List.of(whole, part));
    assertFalse(report.violations().get("atomic").isEmpty(), report.toString());
    assertTrue(report.violations().get("atomic").stream().allMatch(v -> v.startsWith("part:")), report.toString());
  }

  @Test
  void atomicFailsOnAValueThatWasNotWritten() {
    Set<String> failed = broken(watch(events(Event.put("w/a", 2, "other")), events(B, C), events(D, DEL_A), events(E)));
    assertTrue(failed.contains("atomic"), failed.toString());
  }

  @Test
  void resumableFailsWhenTheResumedWatchRepeatsWhatWasSeen() {
    // resumed from the last revision seen instead of the one after it
    Set<String> failed = broken(watch(events(A), events(B, C), new Resumed("member killed"), events(B, C),
        events(D, DEL_A), events(E)));
    assertTrue(failed.contains("resumable"), failed.toString());
  }

  @Test
  void resumableFailsWhenTheResumedWatchSkipsAhead() {
    // resumed from the revision in the created response's header instead of the last seen + 1
    Set<String> failed = broken(watch(events(A), new Resumed("member killed"), events(D, DEL_A), events(E)));
    assertTrue(failed.contains("resumable"), failed.toString());
  }

  @Test
  void resumableFailsWhenTheWatchIsNeverResumed() {
    Set<String> failed = broken(watch(events(A), events(B, C), new Resumed("member removed")));
    assertTrue(failed.contains("resumable"), failed.toString());
  }

  @Test
  void bookmarkableFailsOnAProgressAheadOfTheEvents() {
    // a progress at 5 while revision 5's events were still to come
    assertEquals(Set.of("bookmarkable"), broken(watch(events(A), events(B, C), new Progress(5),
        events(D, DEL_A), events(E))));
  }

  @Test
  void bookmarkableFailsOnAProgressOverAGap() {
    // revision 3 never comes, and a progress claims everything up to 4 was delivered
    Set<String> failed = broken(watch(events(A), new Progress(4), events(D, DEL_A), events(E)));
    assertTrue(failed.contains("bookmarkable"), failed.toString());
  }
}
