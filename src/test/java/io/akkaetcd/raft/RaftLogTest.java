package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Table tests for the log: Raft's log-matching rule (§5.3), up-to-date check (§5.4.1), hints. */
class RaftLogTest {
  static Entry e(long term, long index) {
    return Entry.normal(term, index, ByteString.EMPTY);
  }

  /** A log of the given terms at indexes 1, 2, ...; persisted and committed up to {@code commit}. */
  static RaftLog log(long commit, long... terms) {
    MemoryStorage s = new MemoryStorage();
    List<Entry> es = new ArrayList<>();
    for (int i = 0; i < terms.length; i++) {
      es.add(e(terms[i], i + 1));
    }
    s.append(es);
    s.setHardState(new HardState(terms.length == 0 ? 0 : terms[terms.length - 1], 0, commit));
    return new RaftLog(s, 0);
  }

  static List<Long> terms(RaftLog l) {
    List<Long> out = new ArrayList<>();
    for (long i = 1; i <= l.lastIndex(); i++) {
      out.add(l.term(i));
    }
    return out;
  }

  private record AppendCase(String name, long prevIndex, long prevTerm, long leaderCommit, List<Entry> entries,
                            long wantLastNew, List<Long> wantTerms, long wantCommit) {}

  @Test
  void maybeAppendKeepsMatchingEntriesAndReplacesFromTheFirstConflict() {
    // The follower's log: terms 1 1 2 (indexes 1..3), committed 1.
    List<AppendCase> cases = List.of(
        new AppendCase("prev term mismatch", 3, 3, 3, List.of(e(3, 4)), -1, List.of(1L, 1L, 2L), 1),
        new AppendCase("prev beyond the end", 4, 2, 3, List.of(e(2, 5)), -1, List.of(1L, 1L, 2L), 1),
        new AppendCase("heartbeat-like, commits", 3, 2, 3, List.of(), 3, List.of(1L, 1L, 2L), 3),
        new AppendCase("commit capped at last new", 2, 1, 3, List.of(), 2, List.of(1L, 1L, 2L), 2),
        new AppendCase("append at the end", 3, 2, 4, List.of(e(2, 4)), 4, List.of(1L, 1L, 2L, 2L), 4),
        new AppendCase("duplicate is a no-op", 1, 1, 1, List.of(e(1, 2), e(2, 3)), 3, List.of(1L, 1L, 2L), 1),
        new AppendCase("stale short append keeps the tail", 1, 1, 2, List.of(e(1, 2)), 2, List.of(1L, 1L, 2L), 2),
        new AppendCase("conflict replaces the suffix", 2, 1, 2, List.of(e(3, 3), e(3, 4)), 4,
            List.of(1L, 1L, 3L, 3L), 2),
        new AppendCase("conflict in the middle of the batch", 1, 1, 1, List.of(e(1, 2), e(4, 3)), 3,
            List.of(1L, 1L, 4L), 1));
    for (AppendCase c : cases) {
      RaftLog l = log(1, 1, 1, 2);
      long lastNew = l.maybeAppend(c.prevIndex(), c.prevTerm(), c.leaderCommit(), c.entries());
      assertEquals(c.wantLastNew(), lastNew, c.name());
      assertEquals(c.wantTerms(), terms(l), c.name());
      assertEquals(c.wantCommit(), l.committed, c.name());
    }
  }

  @Test
  void aConflictBelowTheCommitIndexIsABug() {
    RaftLog l = log(2, 1, 1, 2);
    assertThrows(IllegalStateException.class, () -> l.maybeAppend(0, 0, 3, List.of(e(5, 1))));
  }

  @Test
  void upToDateComparesLastTermThenLength() {
    RaftLog l = log(0, 1, 2, 2); // last (3, 2)
    long[][] table = { // index, term, want (1 = up to date)
        {3, 2, 1}, {4, 2, 1}, {2, 2, 0}, {1, 3, 1}, {10, 1, 0}, {0, 0, 0}};
    for (long[] row : table) {
      assertEquals(row[2] == 1, l.isUpToDate(row[0], row[1]), "index " + row[0] + " term " + row[1]);
    }
  }

  @Test
  void findConflictByTermSkipsWholeTerms() {
    RaftLog l = log(0, 1, 1, 3, 3, 3, 5, 5); // indexes 1..7
    long[][] table = { // index, term, want
        {7, 5, 7}, {7, 4, 5}, {7, 3, 5}, {7, 2, 2}, {7, 0, 0}, {4, 3, 4}, {9, 4, 5}, {6, 1, 2}};
    for (long[] row : table) {
      assertEquals(row[2], l.findConflictByTerm(row[0], row[1]), "index " + row[0] + " term " + row[1]);
    }
  }

  @Test
  void unstableEntriesReplaceAPersistedSuffixUntilStable() {
    RaftLog l = log(1, 1, 1, 1);
    l.append(List.of(e(2, 2)));
    assertEquals(2, l.lastIndex());
    assertEquals(List.of(e(2, 2)), l.unstableEntries());
    assertEquals(List.of(e(1, 1), e(2, 2)), l.slice(1, 3, Long.MAX_VALUE));
    l.stableTo(2, 1); // an older write of index 2: does not make the new one stable
    assertEquals(List.of(e(2, 2)), l.unstableEntries());
    l.stableTo(2, 2);
    assertEquals(List.of(), l.unstableEntries());
  }
}
