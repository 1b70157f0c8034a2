package io.akkaetcd.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryStorageTest {
  static Entry e(long term, long index) {
    return Entry.normal(term, index, ByteString.EMPTY);
  }

  @Test
  void appendTruncatesAConflictingSuffix() {
    MemoryStorage s = new MemoryStorage();
    s.append(List.of(e(1, 1), e(1, 2), e(1, 3)));
    s.append(List.of(e(2, 2)));
    assertEquals(2, s.lastIndex());
    assertEquals(2, s.term(2));
    assertThrows(IllegalArgumentException.class, () -> s.append(List.of(e(2, 5))));
  }

  @Test
  void compactKeepsTheCompactionPointsTerm() {
    MemoryStorage s = new MemoryStorage();
    s.append(List.of(e(1, 1), e(1, 2), e(2, 3)));
    s.compact(2);
    assertEquals(3, s.firstIndex());
    assertEquals(1, s.term(2));
    assertEquals(List.of(e(2, 3)), s.entries(3, 4, Long.MAX_VALUE));
    assertThrows(IndexOutOfBoundsException.class, () -> s.entries(2, 4, Long.MAX_VALUE));
  }

  @Test
  void bootstrapStartsOnlyAnEmptyLogAtTermOne() {
    MemoryStorage fresh = new MemoryStorage();
    fresh.bootstrap();
    assertEquals(new HardState(1, 0, 0), fresh.hardState(), "etcd's bootstrap term: the first election is term 2");
    MemoryStorage used = new MemoryStorage();
    used.append(List.of(e(2, 1)));
    used.setHardState(new HardState(2, 1, 1));
    used.bootstrap();
    assertEquals(new HardState(2, 1, 1), used.hardState(), "a restart never moves the term");
    MemoryStorage restored = new MemoryStorage();
    restored.resetTo(1, 1);
    restored.bootstrap();
    assertEquals(new HardState(1, 0, 0), restored.hardState(), "a restored store's point, no term yet");
    assertEquals(2, restored.firstIndex(), "the log starts after the point");
  }

  @Test
  void aBootstrappedLoneVoterLeadsAtTermTwoAndARestartLeadsAtThree() {
    MemoryStorage s = new MemoryStorage();
    s.bootstrap();
    RaftCore core = new RaftCore(RaftCoreSingleMemberTest.config(0), s);
    core.campaign();
    assertEquals(2, core.term());
    Ready rd = core.ready();
    if (rd.hardState() != null) {
      s.setHardState(rd.hardState());
    }
    s.append(rd.entries());
    core.advance(rd);
    s.bootstrap();
    RaftCore restarted = new RaftCore(RaftCoreSingleMemberTest.config(0), s);
    restarted.campaign();
    assertEquals(3, restarted.term());
  }
}
