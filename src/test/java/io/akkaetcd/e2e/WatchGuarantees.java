package io.akkaetcd.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * etcd's six watch guarantees (https://etcd.io/docs/v3.5/learning/api_guarantees/#watch-apis),
 * checked on what watches delivered. Pure: the chaos test records, this judges.
 *
 * <p>What was committed is taken from two sources: the writes whose responses the writer got (their
 * revision and events are known for sure) and what the watches delivered (a revision nobody
 * acknowledged, say a write whose answer was lost, is still known from any watch that saw it). Each
 * check returns its violations, empty when the guarantee held; every check can fail on its own
 * (see {@code WatchGuaranteesTest}).
 */
final class WatchGuarantees {
  private WatchGuarantees() {}

  /** A put of {@code value} or a delete of {@code key} at {@code revision} (the event's mod revision). */
  record Event(String key, long revision, boolean delete, String value) {
    static Event put(String key, long revision, String value) {
      return new Event(key, revision, false, value);
    }

    static Event delete(String key, long revision) {
      return new Event(key, revision, true, "");
    }

    @Override
    public String toString() {
      return (delete ? "DELETE " + key : "PUT " + key + "=" + value) + "@" + revision;
    }
  }

  /** What a watch got, one item per arrival, in arrival order. */
  sealed interface Delivery {}

  /** One WatchResponse with events, in the response's order. */
  record Events(List<Event> events) implements Delivery {
    Events {
      events = List.copyOf(events);
    }
  }

  /**
   * A response without events that vouches for a revision: a progress notification or the answer
   * to a progress request, whose header revision says every event up to it was delivered.
   */
  record Progress(long revision) implements Delivery {}

  /**
   * The watch's stream ended here (an error, its member killed or removed); what follows came from
   * the watch resumed at the last revision it had seen + 1, by jetcd or by the test.
   */
  record Resumed(String cause) implements Delivery {}

  /**
   * One watch as its client saw it.
   *
   * @param keys the keys the watch covers
   * @param start the revision it was opened at
   * @param end the revision up to which it must have delivered everything (the cluster's last
   *     revision once the test stopped writing and the watch said it got that far)
   */
  record History(String name, Predicate<String> keys, long start, List<Delivery> deliveries, long end) {
    History {
      deliveries = List.copyOf(deliveries);
    }

    List<Event> events() {
      List<Event> out = new ArrayList<>();
      for (Delivery d : deliveries) {
        if (d instanceof Events e) {
          out.addAll(e.events());
        }
      }
      return out;
    }
  }

  /** Every check's violations by guarantee, in etcd's order; a guarantee that held has none. */
  record Report(Map<String, List<String>> violations) {
    boolean ok() {
      return violations.values().stream().allMatch(List::isEmpty);
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder();
      violations.forEach((guarantee, found) -> {
        if (!found.isEmpty()) {
          s.append(guarantee).append(": ").append(found.size()).append(" violation(s)\n");
          found.stream().limit(10).forEach(v -> s.append("  ").append(v).append('\n'));
        }
      });
      return s.length() == 0 ? "all six watch guarantees held" : s.toString();
    }
  }

  /**
   * What the cluster committed, by revision: each revision's events in operation order. An
   * acknowledged write's events are taken as they are; a revision only watches saw is taken from
   * the watch that delivered most of it (so a watch that got part of a revision disagrees with it).
   */
  static SortedMap<Long, List<Event>> committed(Map<Long, List<Event>> acknowledged, List<History> histories) {
    SortedMap<Long, List<Event>> out = new TreeMap<>(acknowledged);
    for (History h : histories) {
      byRevision(h.events()).forEach((revision, events) -> {
        if (!acknowledged.containsKey(revision)) {
          out.merge(revision, events, (a, b) -> b.size() > a.size() ? b : a);
        }
      });
    }
    return out;
  }

  /** Runs every check on every history. */
  static Report check(Map<Long, List<Event>> acknowledged, List<History> histories) {
    SortedMap<Long, List<Event>> committed = committed(acknowledged, histories);
    Map<String, List<String>> violations = new LinkedHashMap<>();
    for (String g : List.of("ordered", "unique", "reliable", "atomic", "resumable", "bookmarkable")) {
      violations.put(g, new ArrayList<>());
    }
    for (History h : histories) {
      violations.get("ordered").addAll(ordered(h));
      violations.get("unique").addAll(unique(h));
      violations.get("reliable").addAll(reliable(h, committed));
      violations.get("atomic").addAll(atomic(h, committed));
      violations.get("resumable").addAll(resumable(h, committed));
      violations.get("bookmarkable").addAll(bookmarkable(h, committed));
    }
    return new Report(violations);
  }

  /**
   * Ordered: events arrive by revision and never go back, none before the watch's start.
   */
  static List<String> ordered(History h) {
    List<String> out = new ArrayList<>();
    Event previous = null;
    for (Event e : h.events()) {
      if (e.revision() < h.start()) {
        out.add(h.name() + ": " + e + " is before the watch's start revision " + h.start());
      }
      if (previous != null && e.revision() < previous.revision()) {
        out.add(h.name() + ": " + e + " arrived after " + previous);
      }
      previous = e;
    }
    return out;
  }

  /** Unique: no event is delivered twice (a key changes at most once per revision). */
  static List<String> unique(History h) {
    List<String> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Event e : h.events()) {
      if (!seen.add(e.key() + "@" + e.revision())) {
        out.add(h.name() + ": " + e + " delivered again");
      }
    }
    return out;
  }

  /**
   * Reliable: no gaps; every committed event the watch covers (its keys, from its start to its
   * end) was delivered.
   */
  static List<String> reliable(History h, SortedMap<Long, List<Event>> committed) {
    Set<Event> delivered = new HashSet<>(h.events());
    List<Event> missing = new ArrayList<>();
    for (List<Event> events : committed.subMap(h.start(), Math.max(h.start(), h.end() + 1)).values()) {
      for (Event e : events) {
        if (h.keys().test(e.key()) && !delivered.contains(e)) {
          missing.add(e);
        }
      }
    }
    return missing.isEmpty() ? List.of() : List.of(h.name() + ": " + missing.size() + " committed event(s) between "
        + h.start() + " and " + h.end() + " never delivered, first " + missing.stream().limit(5).toList());
  }

  /**
   * Atomic: all events of a revision (a multi-key txn) arrive in one response, whole and as
   * committed, in operation order; never split over responses. (A response delivered twice is
   * {@link #unique}'s concern: only first deliveries count here.)
   */
  static List<String> atomic(History h, SortedMap<Long, List<Event>> committed) {
    List<String> out = new ArrayList<>();
    Set<Event> seen = new HashSet<>();
    Map<Long, Integer> responseOf = new HashMap<>();
    Map<Long, List<Event>> got = new TreeMap<>();
    int index = 0;
    for (Delivery d : h.deliveries()) {
      index++;
      if (!(d instanceof Events response)) {
        continue;
      }
      for (Event e : response.events()) {
        if (!seen.add(e)) {
          continue;
        }
        Integer first = responseOf.putIfAbsent(e.revision(), index);
        if (first != null && first != index) {
          out.add(h.name() + ": revision " + e.revision() + " split over responses: " + e
              + " came in a later response than " + got.get(e.revision()));
        }
        got.computeIfAbsent(e.revision(), r -> new ArrayList<>()).add(e);
      }
    }
    got.forEach((revision, events) -> {
      List<Event> whole = committed.getOrDefault(revision, List.of()).stream()
          .filter(e -> h.keys().test(e.key())).toList();
      if (!events.equals(whole)) {
        out.add(h.name() + ": revision " + revision + " delivered as " + events + " but it holds " + whole);
      }
    });
    return out;
  }

  /**
   * Resumable: where the stream broke and the watch was resumed, it continued right after the last
   * revision it had seen (last event or progress), with nothing repeated and nothing skipped.
   */
  static List<String> resumable(History h, SortedMap<Long, List<Event>> committed) {
    List<String> out = new ArrayList<>();
    List<Delivery> ds = h.deliveries();
    long seenUpTo = h.start() - 1;
    for (int i = 0; i < ds.size(); i++) {
      Delivery d = ds.get(i);
      if (d instanceof Events e) {
        seenUpTo = Math.max(seenUpTo, e.events().stream().mapToLong(Event::revision).max().orElse(seenUpTo));
      } else if (d instanceof Progress p) {
        seenUpTo = Math.max(seenUpTo, p.revision());
      } else if (d instanceof Resumed r && !(i + 1 < ds.size() && ds.get(i + 1) instanceof Resumed)) {
        Event next = null;
        for (int j = i + 1; j < ds.size() && next == null; j++) {
          if (ds.get(j) instanceof Events later) {
            next = later.events().get(0);
          }
        }
        long last = seenUpTo;
        List<Event> expected = committed.tailMap(last + 1).values().stream().flatMap(List::stream)
            .filter(e -> h.keys().test(e.key()) && e.revision() <= h.end()).limit(1).toList();
        String where = h.name() + ": resumed after " + r.cause() + " having seen up to revision " + last;
        if (next != null && next.revision() <= last) {
          out.add(where + ", the resumed watch delivered " + next + " again");
        } else if (!expected.isEmpty() && (next == null || next.revision() > expected.get(0).revision())) {
          out.add(where + ", the resumed watch " + (next == null ? "delivered nothing" : "went on with " + next)
              + " but the next committed event is " + expected.get(0));
        }
      }
    }
    return out;
  }

  /**
   * Bookmarkable: a progress response at revision R comes only after every event up to R that the
   * watch covers, and no event up to R that was not delivered before it arrives after it.
   */
  static List<String> bookmarkable(History h, SortedMap<Long, List<Event>> committed) {
    List<String> out = new ArrayList<>();
    Set<Event> delivered = new HashSet<>();
    long vouched = h.start() - 1;
    for (Delivery d : h.deliveries()) {
      if (d instanceof Events e) {
        for (Event event : e.events()) {
          if (event.revision() <= vouched && !delivered.contains(event)) {
            out.add(h.name() + ": " + event + " arrived after a progress at revision " + vouched);
          }
        }
        delivered.addAll(e.events());
      } else if (d instanceof Progress p && p.revision() > vouched) {
        List<Event> owed = new ArrayList<>();
        for (List<Event> events : committed.subMap(vouched + 1, p.revision() + 1).values()) {
          for (Event event : events) {
            if (h.keys().test(event.key()) && !delivered.contains(event)) {
              owed.add(event);
            }
          }
        }
        if (!owed.isEmpty()) {
          out.add(h.name() + ": progress at revision " + p.revision() + " before " + owed.size()
              + " event(s) up to it were delivered, first " + owed.stream().limit(3).toList());
        }
        vouched = p.revision();
      }
    }
    return out;
  }

  private static Map<Long, List<Event>> byRevision(List<Event> events) {
    Map<Long, List<Event>> out = new TreeMap<>();
    Set<Event> seen = new HashSet<>();
    for (Event e : events) {
      if (seen.add(e)) {
        out.computeIfAbsent(e.revision(), r -> new ArrayList<>()).add(e);
      }
    }
    return out;
  }
}
